/*
 * svgchart — small charts drawn as inline SVG for the HTML report: horizontal bar charts
 * (one series, or several stacked) and line charts (several series over x, an optional
 * shaded band and an optional marked x). Both have axes with rounded ticks, labels and a
 * legend; every text is XML-escaped, no script, no external reference, no font file (the
 * page's font stack applies). Non-finite values are skipped (a line breaks there).
 * The caller owns the specs and their arrays; output is appended to a caller-owned sbuf.
 */
#ifndef FERRY_SVGCHART_H
#define FERRY_SVGCHART_H

#include "util.h"

#include <stddef.h>

typedef struct svg_bar_series {
	const char *name;     /* the legend's text (shown when there are several series) */
	const char *color;    /* a CSS colour, e.g. "#c0392b" */
	const double *values; /* one per label */
} svg_bar_series;

typedef struct svg_bar_spec {
	const char *title;    /* the figure's title (aria label and heading) */
	const char *unit;     /* the value axis' label, e.g. "person-days"; may be NULL */
	const char *const *labels; /* one per bar, drawn left of it */
	size_t n;
	const svg_bar_series *series; /* stacked in this order */
	size_t nseries;
} svg_bar_spec;

typedef struct svg_line_series {
	const char *name, *color;
	const double *x, *y;
	size_t n;
	int dashed;
} svg_line_series;

typedef struct svg_line_spec {
	const char *title, *xlabel, *ylabel;
	const svg_line_series *series;
	size_t nseries;
	const double *band_x, *band_lo, *band_hi; /* a shaded band (NULL: none) */
	size_t nband;
	const char *band_name;
	int marker;               /* 1: a vertical line at marker_x, labelled */
	double marker_x;
	const char *marker_label;
	int fixed_y;              /* 1: the y range is y_min..y_max instead of the data's */
	double y_min, y_max;
} svg_line_spec;

/* Appends <svg …>…</svg> to b. */
void svg_bar_chart(sbuf *b, const svg_bar_spec *s);
void svg_line_chart(sbuf *b, const svg_line_spec *s);

#endif
