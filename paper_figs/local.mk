# paper_figs/local.mk: `make figures` (every experiment of the cdyn program,
# its figures drawn by the gnuplot scripts here as PDF, PNG and LaTeX, and
# the claims report), `make claims` (the experiments and the report
# alone), `make check-latex-figures` and `make latex-figures`.
# Included by the top Makefile.am; paths are relative to the top directory.
#
# `make figures` runs every experiment (independent ones in parallel under
# make -j), draws the figures with gnuplot and writes the claims report
# figures/claims.csv and figures/claims.md, all in the build tree.  Each experiment writes
# into a temporary directory that is renamed when it is complete, and each
# plot into temporary files renamed on success, so an interrupted run
# leaves nothing that looks finished.  Each plot is drawn three times, by
# three gnuplot processes: PDF and PNG beside its data, and for LaTeX
# papers (cairolatex) in latex/.
FIGDIR = figures
# The program asks OpenBLAS for one thread itself (experiments/main.c).
RUN_CDYN = ./cdyn$(EXEEXT)

# `make figures EXTRA_SCHEMES="mine other"` runs those schemes in every
# experiment beside its own (cdyn run --extra-schemes).  The stamp holds
# the value of the last run and changes only with it, so changing the list
# runs the experiments again and leaving it alone does not.
EXTRA_SCHEMES =
$(FIGDIR)/extra-schemes: FORCE
	@$(MKDIR_P) $(FIGDIR)
	@echo '$(EXTRA_SCHEMES)' > $@.tmp && if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# The line style of every scheme and companion run, one palette for every
# figure (cdyn palette), loaded by paper_figs/common.gp.
$(FIGDIR)/palette.gp: cdyn$(EXEEXT)
	@$(MKDIR_P) $(FIGDIR)
	$(AM_V_GEN)$(RUN_CDYN) palette > $@.tmp && mv $@.tmp $@
# Every experiment of the table experiments/studies/experiments.def
# (lib/types.am lists their names).
EXPERIMENTS = $(EXPERIMENT_NAMES)
EXP_STAMPS = $(EXPERIMENTS:%=$(FIGDIR)/%/done)

# The figures, one PLOT:EXPERIMENT pair each: paper_figs/PLOT.gp draws
# figures/PLOT.pdf, PLOT.png and latex/PLOT.tex from the output of
# `cdyn run EXPERIMENT` (figures/EXPERIMENT/).  PLOTS, the plot scripts
# and each plot's dependency line below are derived from this list, so a
# new figure is one pair here plus its script.
FIGURES = \
	fig2-arm2-error:arm2-drift \
	fig3-arm2-trajectory:arm2-trajectory \
	arm2-tracking:arm2-trajectory \
	convergence:convergence \
	convergence-energy:convergence \
	convergence-velocity:convergence \
	convergence-lambda:convergence \
	spinning-hoop:spinning-hoop \
	stability:stability \
	bad-initial:bad-initial \
	bead-circle:bead-circle \
	stiff-pendulum:stiff-pendulum \
	pbd-stretch:stiff-pendulum \
	arm5-improved:arm5-improved \
	arm5-improved-heavy-end:arm5-improved \
	arm5-improved-order:arm5-improved \
	fig4-arm5-baumgarte:arm5-baumgarte \
	arm5-baumgarte-sweep:arm5-baumgarte \
	arm5-baumgarte-order:arm5-baumgarte \
	fig4-chain10-error:chain10-stability \
	chain10-survival:chain10-stability \
	fig45-corner-platt:corner \
	fig3-corner-tendency:corner \
	corner-platt-h:corner \
	billiard-snapshots:billiard \
	billiard-gap:billiard \
	billiard-momentum-energy:billiard \
	billiard-iterations:billiard \
	chain-scale-stability:chain-scale-stability \
	cloth-snapshots:cloth-elongation \
	cloth-elongation:cloth-elongation \
	cloth-active:cloth-elongation \
	cloth-energy:cloth-elongation \
	cloth-animation:cloth-elongation \
	cloth-cost:cloth-vs-implicit-ode \
	cloth-contact-snapshots:cloth-contact \
	cloth-contact-distance:cloth-contact \
	cloth-contact-active:cloth-contact \
	cloth-contact-cost:cloth-contact \
	cloth-self-contact-snapshots:cloth-self-contact \
	cloth-self-contact-distance:cloth-self-contact \
	cloth-self-contact-cost:cloth-self-contact \
	collision-cost:collision-cost \
	cloth-robustness:cloth-robustness \
	scene-double-pendulum:scene-double-pendulum \
	scene-double-pendulum-paths:scene-double-pendulum
# Scripts that the plot scripts load or run, not plots themselves.
GP_INCLUDES = paper_figs/common.gp paper_figs/arm5-panels.gp paper_figs/arm5-order.gp paper_figs/scene.gp \
	paper_figs/cloth-panels.gp paper_figs/cloth-box.gp paper_figs/cloth-render.awk $(RUN_GP_FILES)
# The scripts of `cdyn plot` and `cdyn animate` (experiments/commands/plot.c
# and animate.c, over experiments/gnuplot.c), installed in $(pkgdatadir) with common.gp and scene.gp, where the
# installed program looks for them ($CDYN_DATADIR overrides it: the
# tests and an uninstalled program point it at paper_figs/).
RUN_GP_FILES = paper_figs/rundir.gp paper_figs/rundir.awk paper_figs/run-series.gp paper_figs/run-paths.gp \
	paper_figs/run-states.gp paper_figs/run-view3d.gp paper_figs/run-animate.gp
plotscriptsdir = $(pkgdatadir)
dist_plotscripts_DATA = paper_figs/common.gp paper_figs/scene.gp $(RUN_GP_FILES)

# fig_plot and fig_experiment PAIR: the two halves of a PLOT:EXPERIMENT pair.
fig_plot = $(word 1,$(subst :, ,$(1)))
fig_experiment = $(word 2,$(subst :, ,$(1)))
PLOT_NAMES = $(foreach f,$(FIGURES),$(call fig_plot,$(f)))
PLOTS = $(PLOT_NAMES:%=$(FIGDIR)/%)
GP_FILES = $(GP_INCLUDES) $(PLOT_NAMES:%=paper_figs/%.gp)

# `make claims RUN_ARGS_EXPERIMENT="..."` adds those options to that one
# experiment's `cdyn run` (`RUN_ARGS_cloth-self-contact="--steps 500 --set
# snapshots=0.25,0.5"`: a shorter run, for a quick check of an added
# scheme).  Its stamp, EXPERIMENT.args, holds the value of the last run,
# as extra-schemes does: changing it runs that experiment again.
.PRECIOUS: $(FIGDIR)/%.args
$(FIGDIR)/%.args: FORCE
	@$(MKDIR_P) $(FIGDIR)
	@echo '$(RUN_ARGS_$*)' > $@.tmp && if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(FIGDIR)/%/done: cdyn$(EXEEXT) $(FIGDIR)/extra-schemes $(FIGDIR)/%.args
	@rm -rf $(FIGDIR)/$*.tmp $(FIGDIR)/$*
	@$(MKDIR_P) $(FIGDIR)
	$(AM_V_GEN)$(RUN_CDYN) run $* --out $(FIGDIR)/$*.tmp \
	  $(if $(strip $(EXTRA_SCHEMES)),--extra-schemes '$(strip $(EXTRA_SCHEMES))') $(RUN_ARGS_$*) > $(FIGDIR)/$*.log
	@mv $(FIGDIR)/$*.tmp $(FIGDIR)/$* && touch $@

# An example scene, run as a researcher runs their own (cdyn run scene)
# and drawn by the generic paper_figs/scene.gp (the scripts of cdyn
# plot): the quick start's example of the scene format.
SCENE_EXAMPLE = $(top_srcdir)/examples/double-pendulum.json
$(FIGDIR)/scene-double-pendulum/done: cdyn$(EXEEXT) $(SCENE_EXAMPLE) $(FIGDIR)/extra-schemes
	@rm -rf $(FIGDIR)/scene-double-pendulum.tmp $(FIGDIR)/scene-double-pendulum
	@$(MKDIR_P) $(FIGDIR)
	$(AM_V_GEN)$(RUN_CDYN) run scene $(SCENE_EXAMPLE) --scheme implicit,baumgarte,poststab \
	  --out $(FIGDIR)/scene-double-pendulum.tmp \
	  $(if $(strip $(EXTRA_SCHEMES)),--extra-schemes '$(strip $(EXTRA_SCHEMES))') > $(FIGDIR)/scene-double-pendulum.log
	@mv $(FIGDIR)/scene-double-pendulum.tmp $(FIGDIR)/scene-double-pendulum && touch $@

# Each plot is drawn again when its experiment has run again or when its
# script or a script it loads has changed:
#   $(FIGDIR)/PLOT.pdf $(FIGDIR)/PLOT.png $(LATEXDIR)/PLOT.tex: $(FIGDIR)/EXPERIMENT/done paper_figs/PLOT.gp $(GP_INCLUDES) ...
LATEXDIR = $(FIGDIR)/latex
PLOTS_TEX = $(PLOTS:$(FIGDIR)/%=$(LATEXDIR)/%.tex)
fig_deps = $(FIGDIR)/$(call fig_plot,$(1)).pdf $(FIGDIR)/$(call fig_plot,$(1)).png $(LATEXDIR)/$(call fig_plot,$(1)).tex: \
	$(FIGDIR)/$(call fig_experiment,$(1))/done paper_figs/$(call fig_plot,$(1)).gp $(GP_INCLUDES) \
	$(FIGDIR)/palette.gp
$(foreach f,$(FIGURES),$(eval $(call fig_deps,$(f))))
# A plot script that loads another plot's script depends on it too.
$(FIGDIR)/convergence-energy.pdf $(FIGDIR)/convergence-velocity.pdf $(FIGDIR)/convergence-lambda.pdf \
$(FIGDIR)/convergence-energy.png $(FIGDIR)/convergence-velocity.png $(FIGDIR)/convergence-lambda.png \
$(LATEXDIR)/convergence-energy.tex $(LATEXDIR)/convergence-velocity.tex $(LATEXDIR)/convergence-lambda.tex: \
	paper_figs/convergence.gp

# gp_pass SCRIPT FIGSRC DATADIR TERMINAL OUTPUT: the gnuplot arguments that
# run paper_figs/SCRIPT.gp as `gnuplot -c SCRIPT.gp FIGSRC DATADIR TERMINAL
# OUTPUT` would, close its output and forget everything it set ("reset
# session": variables, functions and settings), so that the next pass
# starts as a fresh gnuplot does.  (Each is its own -e: gnuplot 5.4 drops
# the rest of a line after "reset session;".)
gp_pass = -e "call '$(2)/$(1).gp' '$(2)' '$(3)' '$(4)' '$(5)'" -e "unset output" -e "reset session"

# Each version of PLOT is drawn by its own gnuplot process, into a
# temporary name renamed when it is complete: PLOT.pdf and PLOT.png beside
# the data, and the LaTeX version latex/PLOT.tex with its graphics
# latex/PLOT.pdf.  Three targets, so that make -j draws them side by side:
# the plots of the last experiment to end (cloth-self-contact's) then use
# both cores, where one process drew the three one after another.  gnuplot's cairolatex
# terminal writes NAME.tex and the graphics NAME.pdf, which NAME.tex
# includes by the path given to `set output` less its extension.  The LaTeX
# pass runs inside a temporary directory (gnuplot's cd), so that this path
# is the bare NAME (a paper finds the file through \graphicspath or from its
# own directory), and is given absolute paths to the script and the data;
# the .tex is renamed last, so that a .tex present has its graphics.
# An interrupted run leaves a version missing or older than its experiment,
# and a run after it draws that version again.
$(FIGDIR)/%.pdf:
	@rm -f $(FIGDIR)/$*.tmp.pdf
	$(AM_V_GEN)$(GNUPLOT) $(call gp_pass,$*,$(top_srcdir)/paper_figs,$(FIGDIR),pdf,$(FIGDIR)/$*.tmp.pdf)
	@mv $(FIGDIR)/$*.tmp.pdf $(FIGDIR)/$*.pdf

$(FIGDIR)/%.png:
	@rm -f $(FIGDIR)/$*.tmp.png
	$(AM_V_GEN)$(GNUPLOT) $(call gp_pass,$*,$(top_srcdir)/paper_figs,$(FIGDIR),png,$(FIGDIR)/$*.tmp.png)
	@mv $(FIGDIR)/$*.tmp.png $(FIGDIR)/$*.png

$(LATEXDIR)/%.tex:
	@rm -rf $(LATEXDIR)/$*.tmp
	@$(MKDIR_P) $(LATEXDIR)/$*.tmp
	$(AM_V_GEN)$(GNUPLOT) -e "cd '$(LATEXDIR)/$*.tmp'" \
	  $(call gp_pass,$*,$(abs_top_srcdir)/paper_figs,$(abs_builddir)/$(FIGDIR),cairolatex,$*.tex)
	@mv $(LATEXDIR)/$*.tmp/$*.pdf $(LATEXDIR)/$*.pdf && mv $(LATEXDIR)/$*.tmp/$*.tex $(LATEXDIR)/$*.tex \
	  && rmdir $(LATEXDIR)/$*.tmp

# The snapshot figures of cloth-contact-snapshots.gp draw their panels
# (each run's cloth at each time as polygons sorted far to near: most of
# the figure's work) once, into PLOT.panels beside the figures, in a pass
# of the script with PREPARE set to the directory to fill; its three
# versions then read them.  A script run by hand without them draws its
# own.
PANEL_PLOTS = cloth-contact-snapshots cloth-self-contact-snapshots
panel_deps = $(FIGDIR)/$(1).pdf $(FIGDIR)/$(1).png $(LATEXDIR)/$(1).tex: $(FIGDIR)/$(1).panels/done
$(foreach p,$(PANEL_PLOTS),$(eval $(call panel_deps,$(p))))
$(FIGDIR)/cloth-contact-snapshots.panels/done: $(FIGDIR)/cloth-contact/done \
	paper_figs/cloth-contact-snapshots.gp $(GP_INCLUDES) $(FIGDIR)/palette.gp
$(FIGDIR)/cloth-self-contact-snapshots.panels/done: $(FIGDIR)/cloth-self-contact/done \
	paper_figs/cloth-self-contact-snapshots.gp paper_figs/cloth-contact-snapshots.gp $(GP_INCLUDES) $(FIGDIR)/palette.gp
# The self-contact figure's script loads cloth-contact's.
$(FIGDIR)/cloth-self-contact-snapshots.pdf $(FIGDIR)/cloth-self-contact-snapshots.png \
$(LATEXDIR)/cloth-self-contact-snapshots.tex: paper_figs/cloth-contact-snapshots.gp
$(FIGDIR)/%.panels/done:
	@rm -rf $(FIGDIR)/$*.panels $(FIGDIR)/$*.panels.tmp
	@$(MKDIR_P) $(FIGDIR)/$*.panels.tmp
	$(AM_V_GEN)$(GNUPLOT) -e "PREPARE = '$(FIGDIR)/$*.panels.tmp'" \
	  $(call gp_pass,$*,$(top_srcdir)/paper_figs,$(FIGDIR),none,none)
	@touch $(FIGDIR)/$*.panels.tmp/done && mv $(FIGDIR)/$*.panels.tmp $(FIGDIR)/$*.panels

# step-cost, cloth-vs-implicit-ode and collision-cost measure wall-clock
# time, so they run alone, one after the other, after the other
# experiments and plots, not beside them under make -j.  ccd-census times
# its queries too, but runs beside the others: no claim rests on its times
# (its counts do not depend on them), the library and the reference are
# timed alike, call by call, so their ratio holds under load, and running
# it alone would add its few seconds to every `make figures`.
TIMED = $(FIGDIR)/step-cost/done $(FIGDIR)/cloth-vs-implicit-ode/done $(FIGDIR)/collision-cost/done
TIMED_PLOTS = $(foreach p,cloth-cost collision-cost,$(FIGDIR)/$(p).pdf $(FIGDIR)/$(p).png $(LATEXDIR)/$(p).tex)
# The order is all: the prerequisites below are order-only, so that a
# plot drawn again (a script changed) or another experiment run again does
# not run the timed ones again (nearly a minute); they still wait for it.
# (`make claims` draws no figure: the timed experiments then wait for the
# other experiments alone.  `TIMED_ALONE=no` lets them run beside the
# others under make -j, for a run whose times do not count: CI's check
# that an added scheme runs in every experiment.)
TIMED_ALONE = yes
timed_after = $(if $(filter no,$(TIMED_ALONE)),,$(1))
$(FIGDIR)/step-cost/done: | $(call timed_after,$(filter-out $(TIMED),$(EXP_STAMPS)) \
	$(if $(filter claims,$(MAKECMDGOALS)),,$(filter-out $(TIMED_PLOTS),$(PLOTS:%=%.pdf) $(PLOTS:%=%.png) $(PLOTS_TEX))))
$(FIGDIR)/cloth-vs-implicit-ode/done: | $(call timed_after,$(FIGDIR)/step-cost/done)
$(FIGDIR)/collision-cost/done: | $(call timed_after,$(FIGDIR)/cloth-vs-implicit-ode/done)
# The timed experiments' plots wait for the last of them (order only: a
# new collision-cost run alone does not draw cloth-cost again), so that
# none is drawn beside a timed experiment.
$(TIMED_PLOTS): | $(FIGDIR)/collision-cost/done

# The longest of the other experiments first: make -j starts the
# prerequisites of `figures` in their order, so these run beside the many
# short ones and the plots, not after them (cloth-contact alone takes
# about 25 s, a third of the experiments' time before the timed ones; the
# others here 4 to 12 s each).
LONG_FIRST = cloth-self-contact cloth-contact cloth-robustness active-set-census chain-scale-stability chain10-stability \
	stability ccd-census cloth-elongation

$(FIGDIR)/claims.csv: $(EXP_STAMPS)
	$(AM_V_GEN)$(RUN_CDYN) report $(FIGDIR) > $(FIGDIR)/report.log

# `make claims`: every experiment and the claims report, without the
# figures (and without gnuplot): what an added scheme's check needs.
claims: $(LONG_FIRST:%=$(FIGDIR)/%/done) $(FIGDIR)/claims.csv
	@echo "claims: $(abs_builddir)/$(FIGDIR)/claims.csv and $(abs_builddir)/$(FIGDIR)/claims.md"

if HAVE_GNUPLOT
figures: $(LONG_FIRST:%=$(FIGDIR)/%/done) $(PLOTS:%=%.pdf) $(PLOTS:%=%.png) $(PLOTS_TEX) $(FIGDIR)/claims.csv
	@echo ""
	@echo "Figures (PDF and PNG), their data (CSV + .meta.json) and the claims report are in:"
	@echo "  $(abs_builddir)/$(FIGDIR)/"
	@echo "  for LaTeX papers (NAME.tex + NAME.pdf): $(abs_builddir)/$(LATEXDIR)/"
	@echo "  claims: $(abs_builddir)/$(FIGDIR)/claims.csv and $(abs_builddir)/$(FIGDIR)/claims.md"

# `make check-latex-figures`: draw the LaTeX figures if needed and compile
# each in a minimal document with pdflatex (paper_figs/check-latex.sh).
# Without pdflatex it says so and succeeds, before running any experiment.
check-latex-figures:
	@if command -v "$${PDFLATEX:-pdflatex}" >/dev/null 2>&1; then \
	  $(MAKE) $(AM_MAKEFLAGS) --no-print-directory latex-figures || exit 1; \
	fi; \
	$(SHELL) $(top_srcdir)/paper_figs/check-latex.sh $(LATEXDIR)

# The empty recipe keeps make quiet when every LaTeX figure is up to date.
latex-figures: $(PLOTS_TEX)
	@:
else
figures check-latex-figures latex-figures:
	@echo "make $@ needs gnuplot, which configure did not find." >&2
	@echo "On Debian: apt-get install gnuplot-nox, then re-run ./configure." >&2
	@exit 1
endif

EXTRA_DIST += $(filter-out $(dist_plotscripts_DATA),$(GP_FILES)) paper_figs/check-latex.sh
