// Allowed: a probe header that carries librdmacm.
#pragma once

#include <rdma/rdma_cma.h>
