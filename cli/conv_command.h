/* `tmcml conv OUT.mco --beam gaussian:W|flat:R [-o FILE]`: an .mco's pencil
 * response convolved with a broad beam (runtime/io/conv.h), as MCML's CONV. */
#ifndef TMCML_CONV_COMMAND_H
#define TMCML_CONV_COMMAND_H

/* argv[0] is the word "conv".  Returns the exit status: 0 written; 1 the
 * .mco could not be read or the result not written (nothing left behind);
 * 2 bad command line (a bad --beam named with its value). */
int conv_command(int argc, char **argv);

#endif
