/* The Bessel function J0 of the spatial-frequency scores (cpu_photon.c;
 * docs/physics.md, "Spatial frequencies"), the CPU engine's own rather than
 * the C library's j0: POSIX's j0 is no C11 function, and its results differ
 * between C libraries and their versions (glibc 2.35 rewrote it), where a
 * score rounded to the tallies' fixed point must be the same bits on every
 * host that continues a checkpoint or shares a run under MPI.  Only
 * arithmetic, sqrt and the C library's sin and cos (correctly rounded in
 * glibc) go into it. */
#ifndef TMCML_CPU_BESSEL_H
#define TMCML_CPU_BESSEL_H

/* J0(x) for any finite x, within 1e-12 absolute (tests/test_bessel.c);
 * J0(0) is 1 exactly. */
double cpu_bessel_j0(double x);

#endif
