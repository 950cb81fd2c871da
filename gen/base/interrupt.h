/* SIGINT and SIGTERM: a run stopped by Ctrl-C or `kill` leaves no temp file
 * behind, says so, and exits with 130 or 143 (128 + the signal).  One
 * handler for the whole program (checkpoints will hook in here too). */
#ifndef TMCML_INTERRUPT_H
#define TMCML_INTERRUPT_H

void interrupt_install(void);

#endif
