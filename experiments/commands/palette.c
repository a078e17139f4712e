/*
 * palette.c: `cdyn palette`, the figures' line styles: gnuplot
 * definitions on stdout (PAL_NAMES, PAL_COLOURS, PAL_DASHES,
 * PAL_POINTS), which make writes into the figures' palette.gp for
 * paper_figs/common.gp, and `cdyn plot` and `cdyn animate` into their
 * temporary directory (gnuplot.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "runner/experiment.h"

/*
 * The line style of every name a figure can show: the registered schemes
 * in registry order, then the companion runs of every experiment.  Name
 * i gets colour i mod 9 of a palette of nine distinct colours and dash
 * type (i / 9) mod 3 + 1 (solid, dashed, dash-dot), and point type
 * (i mod 13) + 1: 27 names before a colour and dash repeat, each with its
 * own point type up to 13.  Grey and black are not in the palette: they
 * are the references' and the thresholds'.
 */
int exp_cmd_palette(int argc, char **argv, const char *command)
{
  (void)argv, (void)command;
  if (argc != 0) {
    fprintf(stderr, "cdyn palette: it takes no arguments ('%s')\n", argv[0]);
    return 2;
  }
  static const char *const colours[9] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#bcbd22", "#17becf"};
  const char *names[256];
  size_t n = 0;
  for (size_t i = 0; i < cdyn_scheme_count() && n < 256; i++)
    names[n++] = cdyn_scheme_name(i);
  for (size_t e = 0; cdyn_experiments[e]; e++)
    for (const exp_companion *c = cdyn_experiments[e]->companions; c && c->name; c++) {
      int dup = 0;
      for (size_t k = 0; k < n; k++)
        dup |= !strcmp(names[k], c->name);
      if (!dup && n < 256)
        names[n++] = c->name;
    }
  printf("# The figures' line styles, written by `cdyn palette` (cdyn %s): one per\n"
         "# scheme and companion run, so that a name looks the same in every figure\n"
         "# and no two names alike.  pal_index(NAME) is its position in PAL_NAMES\n"
         "# (0: not a known name); pal_colour, pal_dash and pal_point give its style.\n",
         cdyn_version());
  printf("PAL_NAMES = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%s", k ? " " : "", names[k]);
  printf("\"\nPAL_COLOURS = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%s", k ? " " : "", colours[k % 9]);
  printf("\"\nPAL_DASHES = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%zu", k ? " " : "", (k / 9) % 3 + 1);
  printf("\"\nPAL_POINTS = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%zu", k ? " " : "", k % 13 + 1);
  printf("\"\n");
  return 0;
}
