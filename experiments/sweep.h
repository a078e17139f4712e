/*
 * sweep.h: `cdyn sweep` and `cdyn collect` (sweep.c).
 *
 * `cdyn sweep` writes the jobs of a grid of parameters and schemes (one
 * `cdyn run` each) into a directory, for an existing engine to run: make
 * -j, GNU parallel (one machine, or several with --sshlogin), or a Slurm
 * job array.  `cdyn collect` merges one CSV file of every job into one
 * table, each row prefixed by its point's coordinates.
 *
 * Both take the arguments after their subcommand word (argv[0] is the
 * first of them) and the whole command line for the metadata, and return
 * the process's exit status: 0 done, 1 failure, 2 usage error.
 */
#ifndef CDYN_SWEEP_H
#define CDYN_SWEEP_H

int exp_cmd_sweep(int argc, char **argv, const char *command);
int exp_cmd_collect(int argc, char **argv, const char *command);

#endif
