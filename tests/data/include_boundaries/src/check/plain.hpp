// A header of the checks that includes no library.
#pragma once
