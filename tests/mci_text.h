/* The tests that write their .mci inline: the text parsed (its errors name
 * it "inline.mci"), an error printed. */
#ifndef TMCML_TESTS_MCI_TEXT_H
#define TMCML_TESTS_MCI_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "mci.h"

static inline bool parse_inline(const char *text, mci_file *f)
{
    tm_error err;
    if (mci_parse(text, "inline.mci", f, &err))
        return true;
    error_print(stderr, &err);
    return false;
}

/* run's source from its text form ("oblique:45"), checked against its
 * layers; an error printed. */
static inline bool run_set_source(mci_run *run, const char *text)
{
    tm_error err = {0};
    source_desc s;
    if (source_parse(text, "source", &s, &err) && source_check_run(&s, run, "source", &err)) {
        run->source = s;
        return true;
    }
    error_print(stderr, &err);
    return false;
}

#endif
