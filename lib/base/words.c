/*
 * words.c: the nearest known word to an unknown one, for the "did you
 * mean" of error messages (the scene reader's, the cdyn program's).
 *
 * The optimal string alignment distance (Damerau's restricted edit
 * distance): the fewest insertions, deletions, substitutions and swaps of
 * two adjacent characters that turn a into b, no substring edited twice.
 * With d(i, j) the distance between the first i bytes of a and the first
 * j of b:
 *   d(i, 0) = i,  d(0, j) = j,
 *   d(i, j) = min(d(i-1, j) + 1, d(i, j-1) + 1, d(i-1, j-1) + [a_i != b_j],
 *                 d(i-2, j-2) + 1 when a_i = b_{j-1} and a_{i-1} = b_j).
 * A candidate is near enough to suggest when it is at most 2 edits away
 * and the edits are fewer than half the word's length, so that a slip in
 * a long name is caught and a short word is matched to nothing.
 */
#include <string.h>

#include "cdyn/error.h"

size_t cdyn_word_distance(const char *a, const char *b)
{
  enum { MAXW = 63 };
  if (!a || !b)
    return (size_t)-1;
  size_t la = strlen(a), lb = strlen(b);
  la = la > MAXW ? MAXW : la;
  lb = lb > MAXW ? MAXW : lb;
  size_t d[MAXW + 1][MAXW + 1];
  for (size_t i = 0; i <= la; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best)
        best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[la][lb];
}

int cdyn_word_near(const char *word, size_t distance)
{
  return word && distance > 0 && distance <= 2 && 2 * distance < strlen(word);
}
