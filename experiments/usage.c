/*
 * usage.c: the cdyn program's usage texts (cdyn --help, cdyn sweep
 * --help, cdyn collect --help).  After a usage error a command prints
 * one line and main.c a pointer to them (try 'cdyn COMMAND --help').
 */
#include <stdio.h>
#include <string.h>

#include "runner/cli.h"
#include "usage.h"

void exp_usage(FILE *f)
{
  fprintf(f,
          "usage: cdyn list [GROUP|SCHEME|EXPERIMENT]\n"
          "       cdyn list --names GROUP\n"
          "       cdyn run EXPERIMENT [--scheme LIST] [--extra-schemes LIST] [--companions LIST]\n"
          "                           [--h STEP] [--steps N] [--set KEY=VALUE ...] [--out DIR] [--force]\n"
          "                           [--no-divergence]\n"
          "       cdyn run EXPERIMENT --help\n"
          "       cdyn run scene FILE.json [the options of run] [--failed-runs-ok]\n"
          "       cdyn check FILE.json ...\n"
          "       cdyn export EXPERIMENT [--out DIR] [--force] [the options of run]\n"
          "       cdyn replay DIR\n"
          "       cdyn sweep (EXPERIMENT | scene FILE.json) --out DIR [--scheme LIST] [--h LIST]\n"
          "                  [--steps N] [--grid KEY=V1,V2,...]... [--set KEY=VALUE]... [--force]\n"
          "                  [--run make|parallel] [--jobs N]\n"
          "       cdyn collect DIR [--file NAME.csv] [--allow-missing]\n"
          "       cdyn report DIR\n"
          "       cdyn palette\n"
          "       cdyn plot DIR [--format pdf,png]\n"
          "       cdyn animate DIR [--run NAME] [--format gif|mp4] [--fps N] [--max-frames N]\n"
          "       cdyn view DIR [--out FILE] [--max-frames N]\n"
          "       cdyn --help | --version\n"
          "\n"
          "list     the schemes (with their options), integrators, solvers, activesets,\n"
          "         constraints and experiments, each GROUP under its heading; one GROUP;\n"
          "         or one SCHEME or EXPERIMENT in full.  --names GROUP: the names alone.\n"
          "run      runs EXPERIMENT's own schemes (the paper's), or those --scheme names\n"
          "         (LIST: comma-separated names, or all), plus --extra-schemes, plus its\n"
          "         companion runs (--companions: all, none, or those named); writes one\n"
          "         CSV per run into DIR (default ./EXPERIMENT; it must be empty or absent,\n"
          "         unless --force, which clears a directory holding only cdyn output),\n"
          "         each with FILE.meta.json, and judges the claims whose runs it has\n"
          "         (claims.part.csv).\n"
          "         --set KEY=VALUE sets an experiment parameter, or a scheme option of\n"
          "         every run whose scheme has it; --set SCHEME.KEY=VALUE one scheme's\n"
          "         (or one run's) option.  `cdyn run EXPERIMENT --help` lists them.\n"
          "run scene  runs a scene file (doc/scene-format.md) as an experiment: its scheme\n"
          "         (or --scheme LIST), its h and steps (or --h, --steps; with t_end in the file\n"
          "         --h keeps t_end); writes NAME-RUN.csv per run (step, t, e, energy, momentum),\n"
          "         NAME-RUN-state.csv when the scene records positions, NAME-RUN.scene.json (the\n"
          "         scene as run) and NAME-summary.csv into DIR (default ./NAME).  A run that fails a\n"
          "         step, goes non-finite, crosses the scene's run.stop limits or diverges is\n"
          "         reported on stderr, with a hint where the cause is known, and the status is\n"
          "         3 (unless --failed-runs-ok); its results are written up to where it ended.\n"
          "         Diverges: every run (an experiment's too) ends after a step at which the\n"
          "         constraint error passes 1000 times the scene's size or a particle lies\n"
          "         farther than 1000 times the scene's reach from its start (doc/cli.md);\n"
          "         --no-divergence (or the scene's run.stop.divergence false) turns it off.\n"
          "check    validates scene files without running them: an error names the file and\n"
          "         the line and column, or the JSON path, and what is wrong.\n"
          "export   writes every run EXPERIMENT starts (with the options given, as for run) as a\n"
          "         scene into DIR (default ./EXPERIMENT-scenes), with index.csv: each scene's\n"
          "         steps and the digest of the trajectory the experiment took, which\n"
          "         cdyn run scene reproduces.\n"
          "replay   runs every scene of DIR (a directory cdyn export wrote) for the steps\n"
          "         its experiment took, writing nothing, and compares each trajectory's\n"
          "         digest with the experiment's (index.csv); exit status 1 when one differs.\n"
          "sweep    writes one `cdyn run` job per point of a grid into DIR: the product of\n"
          "         the schemes of --scheme (each alone), the steps of --h and the values of\n"
          "         each --grid KEY (what --set KEY=VALUE takes; \\, a comma in a value), and\n"
          "         points.csv, jobs.txt, Makefile and slurm.sh for an engine to run them:\n"
          "         make -C DIR -j N -k, parallel < DIR/jobs.txt (--sshlogin: several\n"
          "         machines), sbatch DIR/slurm.sh; --run make|parallel runs them (--jobs N).\n"
          "collect  merges one CSV of every job of a sweep (--file NAME.csv; a scene's\n"
          "         NAME-summary.csv by default) into DIR/collected-NAME.csv, each row after\n"
          "         its job's point; a job not complete is an error (--allow-missing).\n"
          "report   merges the claims.part.csv of every run under DIR/*/ (found by its\n"
          "         run.meta.json) into DIR/claims.csv and the readable DIR/claims.md.\n"
          "palette  prints the gnuplot definitions of the line style of every scheme and\n"
          "         companion run, one distinct style each (paper_figs/ loads them).\n"
          "plot     draws the runs of DIR (a cdyn run output) with gnuplot into DIR: every\n"
          "         quantity against t (STEM-series), the paths of few particles (STEM-paths)\n"
          "         or a 3-D view of a cloth's first and last states (STEM-states), PDF and PNG.\n"
          "animate  writes DIR/STEM-RUN.gif (or .mp4 with ffmpeg): a 3-D view of one run's\n"
          "         recorded positions (--run; default the first run that has them), at\n"
          "         most --max-frames (100) frames shown at --fps (15) per second.\n"
          "view     writes DIR/view.html (or --out FILE): one page, needing nothing else, that\n"
          "         plays the runs of DIR (a run directory) side by side in 3-D, the cloth\n"
          "         coloured by strain or contact; at most --max-frames frames a run\n"
          "         (default: 400, fewer for a large system, to keep the page a few MB).\n"
          "\n"
          "Every option's value may follow it as the next word or after '=' (--h=0.01).\n"
          "Exit status: 0 done; 1 an error (an input file missing or invalid, an output\n"
          "not writable, a replay that differs); 2 a usage error; 3 a scene run of which a\n"
          "run failed.  The manual: man cdyn, doc/cli.md.\n");
}

void exp_sweep_usage(FILE *f)
{
  fprintf(f,
          "usage: cdyn sweep (EXPERIMENT | scene FILE.json) --out DIR [--scheme LIST] [--h LIST] [--steps N]\n"
          "                  [--grid KEY=V1,V2,...]... [--set KEY=VALUE]... [--force]\n"
          "                  [--run make|parallel] [--jobs N]\n"
          "       cdyn collect DIR [--file NAME.csv] [--allow-missing]\n"
          "\n"
          "sweep    writes into DIR one `cdyn run` job per point of the product of the schemes\n"
          "         of --scheme (each alone; without it the experiment's or scene's own), the\n"
          "         steps of --h (comma separated) and the values of every --grid KEY (what\n"
          "         --set KEY=VALUE takes; comma separated, \\, a comma within a value), each\n"
          "         job writing DIR/jobs/NNNNNN and its output DIR/logs/NNNNNN.log; --set\n"
          "         and --steps apply to every job.  It writes DIR/points.csv (the point of\n"
          "         every job), jobs.txt (one shell command a line), Makefile, slurm.sh and\n"
          "         sweep.meta.json, and prints how to run them:\n"
          "           make -C DIR -j 2 -k                   runs the jobs not complete\n"
          "           parallel --jobs 2 < DIR/jobs.txt      GNU parallel on this machine\n"
          "           parallel --sshlogin H1,H2 < DIR/jobs.txt   on machines sharing the files\n"
          "           sbatch DIR/slurm.sh                   a Slurm job array\n"
          "         --run make|parallel runs them itself through that engine, --jobs N at a\n"
          "         time (default 2).  DIR must be empty or absent, unless --force, which\n"
          "         clears a directory holding only what a sweep wrote.  Every job is first\n"
          "         checked as `cdyn run` checks its arguments: nothing is written if one fails.\n"
          "collect  writes DIR/collected-NAME.csv: for every job, the rows of its NAME.csv\n"
          "         (--file; for a scene sweep its NAME-summary.csv by default), each after\n"
          "         the job's point, with collected-NAME.meta.json.  The columns: job,\n"
          "         point.scheme, point.h, point.KEY... (points.csv's, prefixed), then the\n"
          "         file's own.  A job without run.meta.json or without the file is an error\n"
          "         naming it, unless --allow-missing, which collects the others and records\n"
          "         the missing.\n");
}

void exp_command_usage(FILE *f, const char *command)
{
  if (!strcmp(command, "sweep") || !strcmp(command, "collect"))
    exp_sweep_usage(f);
  else
    exp_usage(f);
}
