# rundir.awk: what the run scripts (paper_figs/run-*.gp) read from a run
# directory's files, one task per value of the variable `what`:
#
#   cols    the header of a run's CSV: the columns a time-series figure
#           draws, space-separated (all but step, t, status, e_sum and
#           the node positions x0, y0, z0, x1, ...)
#   unit    a run's .meta.json: the unit of the column `col` (its
#           column_info entry), empty if it has none
#   stat    run CSVs (any number): for the column `col`, over every row
#           after the first of each file, with `delta` = 1 the value less
#           the file's first value: "POS MAXABS MINRUN NRUN" -- the
#           smallest positive value (0 if none), the largest absolute
#           value, the smallest of the files' largest absolute values
#           among files that have one above 0 (0 if none), and the count
#           of such files
#   first   a run CSV: the first finite value of the column `col`
#   paths   a state CSV (step,t,particle,x,y,z) or a run CSV with node
#           columns x0,y0,z0,x1,...: each particle's path, one block
#           "x y z" per particle separated by blank lines, in the order of
#           the particles
#   nparts  the same files: the number of particles
#   extent  the same files (any number): "XMIN XMAX YMIN YMAX ZMIN ZMAX"
#
# Files are comma separated with a header line; a value "nan" or "inf"
# is skipped.
BEGIN { FS = "," }
function finite(v) { return v == v + 0 && v !~ /nan|inf/ }
FNR == 1 {
  delete cidx; nodecols = 0
  for (k = 1; k <= NF; k++) {
    cidx[$k] = k
    if ($k ~ /^x[0-9]+$/) nodecols++
  }
  state = ("particle" in cidx) && ("x" in cidx)
  if (what == "cols") {
    out = ""
    for (k = 1; k <= NF; k++)
      if ($k !~ /^(step|t|status|e_sum|particle|[xyz][0-9]*)$/ && $k != "")
        out = out (out == "" ? "" : " ") $k
    printf "%s", out
    exit
  }
  if (what == "stat" || what == "first") { c = (col in cidx) ? cidx[col] : 0; first = ""; fmax[FILENAME] = 0 }
  next
}
what == "unit" {
  if (index($0, "\"name\": \"" col "\",") && index($0, "\"unit\"")) {
    s = $0; sub(/.*"unit": *"/, "", s); sub(/".*/, "", s); printf "%s", s; exit
  }
  next
}
what == "first" { if (c && finite($c)) { printf "%.17g", $c + 0; exit } next }
what == "stat" {
  if (!c || !finite($c)) next
  v = $c + 0
  if (delta) { if (first == "") { first = v; next } v -= first }
  a = v < 0 ? -v : v
  if (v > 0 && (pos == "" || v < pos)) pos = v
  if (a > maxabs) maxabs = a
  if (a > fmax[FILENAME]) fmax[FILENAME] = a
  next
}
function put(p, x, y, z) {
  if (!finite(x) || !finite(y) || !finite(z)) return
  if (what == "extent") {
    if (!seen) { x0 = x1 = x; y0 = y1 = y; z0 = z1 = z; seen = 1 }
    if (x < x0) x0 = x; if (x > x1) x1 = x
    if (y < y0) y0 = y; if (y > y1) y1 = y
    if (z < z0) z0 = z; if (z > z1) z1 = z
  } else {
    path[p] = path[p] x " " y " " z "\n"
  }
  if (p + 1 > np) np = p + 1
}
state { put($cidx["particle"] + 0, $cidx["x"], $cidx["y"], $cidx["z"]); next }
nodecols {
  for (p = 0; p < nodecols; p++)
    if (("x" p) in cidx && ("y" p) in cidx && ("z" p) in cidx)
      put(p, $cidx["x" p], $cidx["y" p], $cidx["z" p])
}
END {
  if (what == "stat") {
    n = 0; mr = 0
    for (f in fmax) if (fmax[f] > 0) { n++; if (mr == 0 || fmax[f] < mr) mr = fmax[f] }
    printf "%.17g %.17g %.17g %d", pos == "" ? 0 : pos, maxabs + 0, mr, n
  } else if (what == "paths") {
    for (p = 0; p < np; p++) printf "%s\n\n", path[p]
  } else if (what == "nparts") {
    printf "%d", np
  } else if (what == "extent") {
    printf "%.17g %.17g %.17g %.17g %.17g %.17g", x0, x1, y0, y1, z0, z1
  }
}
