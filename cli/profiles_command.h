/* `tmcml profiles list|show|check [--profiles DIR]`: the profile files on the
 * search path (tuner/profile.h), what they hold, and whether they are usable
 * by this tmcml. */
#ifndef TMCML_PROFILES_COMMAND_H
#define TMCML_PROFILES_COMMAND_H

/* argv[0] is the word "profiles".  Returns the exit status: 0 done; 1 a
 * profile is corrupt or unreadable (check, show); 2 bad command line or
 * nothing matched. */
int profiles_command(int argc, char **argv);

#endif
