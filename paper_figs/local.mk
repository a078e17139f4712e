# paper_figs/local.mk: `make figures` (every experiment of the cdyn program,
# its figures drawn by the gnuplot scripts here as PDF, PNG and LaTeX, and
# the claims report), `make check-latex-figures` and `make latex-figures`.
# Included by the top Makefile.am; paths are relative to the top directory.
#
# `make figures` runs every experiment (independent ones in parallel under
# make -j), draws the figures with gnuplot and writes claims.csv and
# claims.md, all under figures/ in the build tree.  Each experiment writes
# into a temporary directory that is renamed when it is complete, and each
# plot into a temporary file renamed on success, so an interrupted run
# leaves nothing that looks finished.  Each plot is drawn three times: PDF
# and PNG beside its data, and for LaTeX papers (cairolatex) in latex/.
FIGDIR = figures
RUN_CDYN = OPENBLAS_NUM_THREADS=1 ./cdyn$(EXEEXT)
EXPERIMENTS = arm2-drift arm2-trajectory step-cost convergence stability bad-initial \
	bead-circle stiff-pendulum arm5-improved arm5-baumgarte chain10-stability corner billiard \
	active-set-census
EXP_STAMPS = $(EXPERIMENTS:%=$(FIGDIR)/%/done)
PLOTS = $(FIGDIR)/fig2-arm2-error $(FIGDIR)/fig3-arm2-trajectory $(FIGDIR)/arm2-tracking \
	$(FIGDIR)/convergence $(FIGDIR)/stability $(FIGDIR)/bad-initial $(FIGDIR)/bead-circle \
	$(FIGDIR)/stiff-pendulum $(FIGDIR)/pbd-stretch $(FIGDIR)/arm5-improved \
	$(FIGDIR)/arm5-improved-heavy-end $(FIGDIR)/arm5-improved-order $(FIGDIR)/fig4-arm5-baumgarte \
	$(FIGDIR)/arm5-baumgarte-sweep $(FIGDIR)/arm5-baumgarte-order $(FIGDIR)/fig4-chain10-error \
	$(FIGDIR)/chain10-survival $(FIGDIR)/fig45-corner-platt $(FIGDIR)/fig3-corner-tendency \
	$(FIGDIR)/corner-platt-h $(FIGDIR)/billiard-snapshots $(FIGDIR)/billiard-gap \
	$(FIGDIR)/billiard-momentum-energy $(FIGDIR)/billiard-iterations
GP_FILES = paper_figs/common.gp paper_figs/fig2-arm2-error.gp \
	paper_figs/fig3-arm2-trajectory.gp paper_figs/arm2-tracking.gp \
	paper_figs/convergence.gp paper_figs/stability.gp paper_figs/bad-initial.gp \
	paper_figs/bead-circle.gp paper_figs/stiff-pendulum.gp paper_figs/pbd-stretch.gp \
	paper_figs/arm5-panels.gp paper_figs/arm5-improved.gp paper_figs/arm5-improved-heavy-end.gp \
	paper_figs/arm5-order.gp paper_figs/arm5-improved-order.gp paper_figs/arm5-baumgarte-order.gp \
	paper_figs/fig4-arm5-baumgarte.gp paper_figs/arm5-baumgarte-sweep.gp \
	paper_figs/fig4-chain10-error.gp paper_figs/chain10-survival.gp \
	paper_figs/fig45-corner-platt.gp paper_figs/fig3-corner-tendency.gp paper_figs/corner-platt-h.gp \
	paper_figs/billiard-snapshots.gp paper_figs/billiard-gap.gp \
	paper_figs/billiard-momentum-energy.gp paper_figs/billiard-iterations.gp

$(FIGDIR)/%/done: cdyn$(EXEEXT)
	@rm -rf $(FIGDIR)/$*.tmp $(FIGDIR)/$*
	@$(MKDIR_P) $(FIGDIR)
	$(AM_V_GEN)$(RUN_CDYN) run $* --out $(FIGDIR)/$*.tmp > $(FIGDIR)/$*.log
	@mv $(FIGDIR)/$*.tmp $(FIGDIR)/$* && touch $@

# plot NAME SCRIPT TERMINAL EXT: draw into NAME.tmp.EXT, then rename.
plot = $(GNUPLOT) -c $(top_srcdir)/paper_figs/$(2).gp $(top_srcdir)/paper_figs $(FIGDIR) $(3) $(1).tmp.$(4) \
	&& mv $(1).tmp.$(4) $(1).$(4)

$(FIGDIR)/fig2-arm2-error.pdf: $(FIGDIR)/arm2-drift/done $(GP_FILES)
$(FIGDIR)/fig3-arm2-trajectory.pdf: $(FIGDIR)/arm2-trajectory/done $(GP_FILES)
$(FIGDIR)/arm2-tracking.pdf: $(FIGDIR)/arm2-trajectory/done $(GP_FILES)
$(FIGDIR)/convergence.pdf: $(FIGDIR)/convergence/done $(GP_FILES)
$(FIGDIR)/stability.pdf: $(FIGDIR)/stability/done $(GP_FILES)
$(FIGDIR)/bad-initial.pdf: $(FIGDIR)/bad-initial/done $(GP_FILES)
$(FIGDIR)/bead-circle.pdf: $(FIGDIR)/bead-circle/done $(GP_FILES)
$(FIGDIR)/stiff-pendulum.pdf: $(FIGDIR)/stiff-pendulum/done $(GP_FILES)
$(FIGDIR)/pbd-stretch.pdf: $(FIGDIR)/stiff-pendulum/done $(GP_FILES)
$(FIGDIR)/arm5-improved.pdf: $(FIGDIR)/arm5-improved/done $(GP_FILES)
$(FIGDIR)/arm5-improved-heavy-end.pdf: $(FIGDIR)/arm5-improved/done $(GP_FILES)
$(FIGDIR)/arm5-improved-order.pdf: $(FIGDIR)/arm5-improved/done $(GP_FILES)
$(FIGDIR)/fig4-arm5-baumgarte.pdf: $(FIGDIR)/arm5-baumgarte/done $(GP_FILES)
$(FIGDIR)/arm5-baumgarte-sweep.pdf: $(FIGDIR)/arm5-baumgarte/done $(GP_FILES)
$(FIGDIR)/arm5-baumgarte-order.pdf: $(FIGDIR)/arm5-baumgarte/done $(GP_FILES)
$(FIGDIR)/fig4-chain10-error.pdf: $(FIGDIR)/chain10-stability/done $(GP_FILES)
$(FIGDIR)/chain10-survival.pdf: $(FIGDIR)/chain10-stability/done $(GP_FILES)
$(FIGDIR)/fig45-corner-platt.pdf: $(FIGDIR)/corner/done $(GP_FILES)
$(FIGDIR)/fig3-corner-tendency.pdf: $(FIGDIR)/corner/done $(GP_FILES)
$(FIGDIR)/corner-platt-h.pdf: $(FIGDIR)/corner/done $(GP_FILES)
$(FIGDIR)/billiard-snapshots.pdf: $(FIGDIR)/billiard/done $(GP_FILES)
$(FIGDIR)/billiard-gap.pdf: $(FIGDIR)/billiard/done $(GP_FILES)
$(FIGDIR)/billiard-momentum-energy.pdf: $(FIGDIR)/billiard/done $(GP_FILES)
$(FIGDIR)/billiard-iterations.pdf: $(FIGDIR)/billiard/done $(GP_FILES)

$(FIGDIR)/%.pdf:
	$(AM_V_GEN)$(call plot,$(FIGDIR)/$*,$*,pdf,pdf) && $(call plot,$(FIGDIR)/$*,$*,png,png)

# The LaTeX version of each plot.  gnuplot's cairolatex terminal writes
# NAME.tex and the graphics NAME.pdf, which NAME.tex includes by the path
# given to `set output` less its extension.  gnuplot runs inside a
# temporary directory, so that this path is the bare NAME (a paper finds
# the file through \graphicspath or from its own directory), and is given
# absolute paths to the script and the data.  The .tex is moved into place
# last: it is the target, so an interrupted run leaves no .tex, and a run
# after it draws the figure again.  Depending on the PDF figure gives each
# LaTeX figure the same data dependencies without a line of its own.
LATEXDIR = $(FIGDIR)/latex
PLOTS_TEX = $(PLOTS:$(FIGDIR)/%=$(LATEXDIR)/%.tex)

$(LATEXDIR)/%.tex: $(FIGDIR)/%.pdf
	@rm -rf $(LATEXDIR)/$*.tmp
	@$(MKDIR_P) $(LATEXDIR)/$*.tmp
	$(AM_V_GEN)cd $(LATEXDIR)/$*.tmp && $(GNUPLOT) -c $(abs_top_srcdir)/paper_figs/$*.gp \
	  $(abs_top_srcdir)/paper_figs $(abs_builddir)/$(FIGDIR) cairolatex $*.tex
	@mv $(LATEXDIR)/$*.tmp/$*.pdf $(LATEXDIR)/$*.pdf && mv $(LATEXDIR)/$*.tmp/$*.tex $@ \
	  && rmdir $(LATEXDIR)/$*.tmp

# step-cost measures wall-clock time, so it runs alone, after the other
# experiments and plots, not beside them under make -j.
$(FIGDIR)/step-cost/done: $(filter-out $(FIGDIR)/step-cost/done,$(EXP_STAMPS)) $(PLOTS:%=%.pdf) \
	$(PLOTS_TEX)

$(FIGDIR)/claims.csv: $(EXP_STAMPS)
	$(AM_V_GEN)$(RUN_CDYN) report $(FIGDIR) > $(FIGDIR)/report.log

if HAVE_GNUPLOT
figures: $(PLOTS:%=%.pdf) $(PLOTS_TEX) $(FIGDIR)/claims.csv
	@echo ""
	@echo "Figures (PDF and PNG), their data (CSV + .meta.json) and the claims report are in:"
	@echo "  $(abs_builddir)/$(FIGDIR)/"
	@echo "  for LaTeX papers (NAME.tex + NAME.pdf): $(abs_builddir)/$(LATEXDIR)/"
	@echo "  claims: $(abs_builddir)/$(FIGDIR)/claims.csv and claims.md"

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

EXTRA_DIST += $(GP_FILES) paper_figs/check-latex.sh
