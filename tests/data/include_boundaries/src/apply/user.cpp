// Violation: a source including that public header.
#include <ibsetup/public.hpp>
