/* `tmcml lut --mua AXIS --musp AXIS -o OUT [options]`: a lookup table of
 * diffuse reflectance, total and per ring, of one homogeneous layer over a
 * grid of mua and mus' (the library's tmcml_lut, docs/lut.md), written as OUT.csv
 * and OUT.npz. */
#ifndef TMCML_LUT_COMMAND_H
#define TMCML_LUT_COMMAND_H

/* argv[0] is the word "lut".  Returns the exit status: 0 written; 1 a
 * simulation or a write failed (no file half-written, the simulations done
 * kept in OUT.lut.ckpt); 2 bad command line, an output that cannot be
 * written or a checkpoint that cannot be continued: nothing simulated,
 * nothing written.  A stop signal exits 128 + the signal (lut_run.h). */
int lut_command(int argc, char **argv);

#endif
