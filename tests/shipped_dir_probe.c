/* A shared library holding the tuner, as libtmcml.so does: test_shipped_dir
 * loads it from the build tree and from copies elsewhere, and asks where it
 * finds the shipped profiles (from its own file, through dladdr). */
#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

bool probe_shipped_dir(char *buf, size_t size);

bool probe_shipped_dir(char *buf, size_t size) { return profile_shipped_dir(buf, size); }
