/* Options given once (option_once.h). */
#include "option_once.h"

#include <stdio.h>
#include <string.h>

/* Short forms of the options that have a long one. */
static const char *const aliases[][2] = {
    {"-S", "--seed"}, {"-N", "--photons"}, {"-o", "--output"}, {"-q", "--quiet"}};

/* The option of argv[first .. last]: its name (the long one where an alias)
 * and value, from "--name=value", "--name value", "-Xvalue", "-X value" or
 * a flag. */
static option_given split(char **argv, int first, int last)
{
    const char *a = argv[first];
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    size_t len = strlen(a);
    option_given o = {.value = ""};
    if (last > first) {
        o.value = argv[last];
    } else if (eq) {
        len = (size_t)(eq - a);
        o.value = eq + 1;
    } else if (a[1] != '-' && len > 2) {
        len = 2; /* "-S5" */
        o.value = a + 2;
    }
    o.value_len = strlen(o.value);
    snprintf(o.name, sizeof o.name, "%.*s", (int)len, a);
    for (size_t k = 0; k < sizeof aliases / sizeof *aliases; k++)
        if (strcmp(o.name, aliases[k][0]) == 0)
            snprintf(o.name, sizeof o.name, "%s", aliases[k][1]);
    return o;
}

bool option_once(options_given *g, char **argv, int first, int last, tm_error *err)
{
    option_given o = split(argv, first, last);
    for (int k = 0; k < g->count; k++) {
        const option_given *p = &g->at[k];
        if (strcmp(p->name, o.name) == 0 && strcmp(p->value, o.value) != 0) {
            error_set(err, NULL, 0,
                      "%s given twice, with different values (\"%.200s\", then \"%.200s\"): give "
                      "it once",
                      o.name, p->value, o.value);
            return false;
        }
    }
    g->at[g->count++] = o;
    return true;
}
