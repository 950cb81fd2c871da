/* Options given once (option_once.h). */
#include "option_once.h"

#include <stdio.h>
#include <string.h>

bool option_once(options_given *g, const char *name, const char *value, tm_error *err)
{
    for (int k = 0; k < g->count; k++) {
        const option_given *p = &g->at[k];
        if (strcmp(p->name, name) == 0 && strcmp(p->value, value) != 0) {
            error_set(err, NULL, 0,
                      "%s given twice, with different values (\"%.200s\", then \"%.200s\"): give "
                      "it once",
                      name, p->value, value);
            return false;
        }
    }
    option_given *o = &g->at[g->count++];
    snprintf(o->name, sizeof o->name, "%s", name);
    o->value = value;
    return true;
}

bool option_once_read(options_given *g, const option_read *o, tm_error *err)
{
    if (o->row->flags & OPTION_REPEATABLE)
        return true;
    return option_once(g, o->row->name, o->value ? o->value : "", err);
}
