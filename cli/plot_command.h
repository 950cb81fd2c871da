/* `tmcml plot OUT.mco [-o FIG.png]`: one PNG figure of an MCML .mco
 * (runtime/figure/plot_mco.h): the fluence map, R_d(r) and A(z). */
#ifndef TMCML_PLOT_COMMAND_H
#define TMCML_PLOT_COMMAND_H

/* argv[0] is the word "plot".  Returns the exit status: 0 the figure is
 * written; 1 the .mco could not be read or the figure not written (nothing
 * left behind); 2 bad command line. */
int plot_command(int argc, char **argv);

#endif
