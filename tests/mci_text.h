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

#endif
