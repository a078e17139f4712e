/*
 * palette.c: `cdyn palette`, the figures' line styles: gnuplot
 * definitions on stdout (PAL_NAMES, PAL_COLOURS, PAL_DASHES,
 * PAL_POINTS), which make writes into the figures' palette.gp for
 * paper_figs/common.gp, and `cdyn plot` and `cdyn animate` into their
 * temporary directory (gnuplot.c, which writes it: exp_palette_write).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gnuplot.h"
#include "runner/text.h"

int exp_cmd_palette(int argc, char **argv, const char *command)
{
  (void)argv, (void)command;
  if (argc != 0) {
    fprintf(stderr, "cdyn palette: it takes no arguments ('%s')\n", argv[0]);
    return 2;
  }
  if (exp_palette_write(stdout) || fflush(stdout))
    return exp_complain("cdyn palette", EXP_EXIT_FAIL, "cannot write the palette: %s", strerror(errno));
  return EXP_EXIT_OK;
}
