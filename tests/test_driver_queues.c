/* driver/driver_queues.c: the command line asks the CUDA driver for one work
 * queue a context, and keeps any count the user's environment names (an
 * empty value included: it is theirs to set). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "driver_queues.h"

static void unset_becomes_one(void)
{
    unsetenv(DRIVER_QUEUES_VARIABLE);
    CHECK(driver_queues_apply());
    const char *v = getenv(DRIVER_QUEUES_VARIABLE);
    CHECK(v && strcmp(v, "1") == 0);
    /* a second call finds it set and changes nothing */
    CHECK(!driver_queues_apply());
    v = getenv(DRIVER_QUEUES_VARIABLE);
    CHECK(v && strcmp(v, "1") == 0);
}

static void users_value_is_kept(const char *value)
{
    setenv(DRIVER_QUEUES_VARIABLE, value, 1);
    CHECK(!driver_queues_apply());
    const char *v = getenv(DRIVER_QUEUES_VARIABLE);
    CHECK_MSG(v && strcmp(v, value) == 0, "\"%s\" became \"%s\"", value, v ? v : "(unset)");
}

int main(void)
{
    unset_becomes_one();
    users_value_is_kept("8");
    users_value_is_kept("32");
    users_value_is_kept("");
    return check_summary("test_driver_queues");
}
