/* `tmcml plot OUT.mco [-o FIG.png] [--no-stderr]`: one PNG figure of an
 * MCML .mco (runtime/figure/plot_mco.h): the fluence map, R_d(r) and A(z),
 * the curves on bands of their standard errors where OUT.npz beside the
 * .mco has them (runtime/io/mco_stderr.h) and --no-stderr is not given. */
#ifndef TMCML_PLOT_COMMAND_H
#define TMCML_PLOT_COMMAND_H

/* argv[0] is the word "plot".  Returns the exit status: 0 the figure is
 * written; 1 the .mco could not be read or the figure not written (nothing
 * left behind); 2 bad command line. */
int plot_command(int argc, char **argv);

#endif
