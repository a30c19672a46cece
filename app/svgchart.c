/* svgchart — see svgchart.h. */
#include "svgchart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 640.0
#define FONT "font-size=\"11\" fill=\"#333\""

static void esc(sbuf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sbuf_adds(b, "&amp;"); break;
		case '<': sbuf_adds(b, "&lt;"); break;
		case '>': sbuf_adds(b, "&gt;"); break;
		case '"': sbuf_adds(b, "&quot;"); break;
		case '\'': sbuf_adds(b, "&#39;"); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				sbuf_addc(b, *s);
		}
	}
}

/* A text cut to at most max characters (UTF-8 aware), with "…" when cut. */
static void esc_cut(sbuf *b, const char *s, size_t max)
{
	size_t chars = 0, i = 0;
	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && ++chars > max)
			break;
	if (!s[i]) {
		esc(b, s);
		return;
	}
	char *cut = xasprintf("%.*s…", (int)i, s);
	esc(b, cut);
	free(cut);
}

/* A step of 1, 2 or 5 × 10^k that splits span into about n parts. */
static double nice_step(double span, int n)
{
	if (!(span > 0))
		return 1;
	double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void num(sbuf *b, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	sbuf_addf(b, "%g", v);
}

static void open_svg(sbuf *b, const char *title, double h)
{
	sbuf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", W, h);
	esc(b, title);
	sbuf_adds(b, "\"><title>");
	esc(b, title);
	sbuf_adds(b, "</title>\n");
}

static void legend(sbuf *b, double x, double y, const char *name, const char *color, int dashed)
{
	sbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"%s\" fill=\"%s\"/>", x, dashed ? y + 4 : y,
	          dashed ? "3" : "10", color);
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" " FONT ">", x + 16, y + 9);
	esc(b, name);
	sbuf_adds(b, "</text>\n");
}

void svg_bar_chart(sbuf *b, const svg_bar_spec *s)
{
	const double left = 210, right = 30, top = s->nseries > 1 ? 30 : 10, row = 22;
	double h = top + row * (double)(s->n ? s->n : 1) + 40, max = 0;
	for (size_t i = 0; i < s->n; i++) {
		double t = 0;
		for (size_t k = 0; k < s->nseries; k++)
			t += isfinite(s->series[k].values[i]) && s->series[k].values[i] > 0 ? s->series[k].values[i] : 0;
		max = t > max ? t : max;
	}
	double step = nice_step(max, 5), top_v = max > 0 ? ceil(max / step) * step : 1;
	double plot = W - left - right, bottom = top + row * (double)(s->n ? s->n : 1);
	open_svg(b, s->title, h);
	if (s->nseries > 1) {
		double x = left;
		for (size_t k = 0; k < s->nseries; k++, x += 110)
			legend(b, x, 8, s->series[k].name, s->series[k].color, 0);
	}
	for (double v = 0; v <= top_v + step / 2; v += step) {
		double x = left + plot * v / top_v;
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", x, top, x, bottom);
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT ">", x, bottom + 14);
		num(b, v);
		sbuf_adds(b, "</text>\n");
	}
	for (size_t i = 0; i < s->n; i++) {
		double y = top + row * (double)i, x = left;
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" " FONT ">", left - 6, y + row / 2 + 4);
		esc_cut(b, s->labels[i], 30);
		sbuf_adds(b, "</text>");
		double total = 0;
		for (size_t k = 0; k < s->nseries; k++) {
			double v = s->series[k].values[i];
			if (!isfinite(v) || v <= 0)
				continue;
			double w = plot * v / top_v;
			sbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", x, y + 3, w, row - 6,
			          s->series[k].color);
			x += w;
			total += v;
		}
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" " FONT ">", x + 4, y + row / 2 + 4);
		num(b, total);
		sbuf_adds(b, "</text>\n");
	}
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>", left, top, left, bottom);
	if (s->unit) {
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT ">", left + plot / 2, bottom + 30);
		esc(b, s->unit);
		sbuf_adds(b, "</text>\n");
	}
	sbuf_adds(b, "</svg>\n");
}

static void range(double *lo, double *hi, double v)
{
	if (!isfinite(v))
		return;
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

void svg_line_chart(sbuf *b, const svg_line_spec *s)
{
	const double left = 60, right = 20, top = 30, h = 300, bottom = h - 45, plot_w = W - left - right, plot_h = bottom - top;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	for (size_t k = 0; k < s->nseries; k++)
		for (size_t i = 0; i < s->series[k].n; i++) {
			if (!isfinite(s->series[k].y[i]))
				continue;
			range(&x0, &x1, s->series[k].x[i]);
			range(&y0, &y1, s->series[k].y[i]);
		}
	for (size_t i = 0; i < s->nband; i++) {
		range(&y0, &y1, s->band_lo[i]);
		range(&y0, &y1, s->band_hi[i]);
	}
	if (s->marker)
		range(&x0, &x1, s->marker_x);
	if (s->fixed_y) {
		y0 = s->y_min;
		y1 = s->y_max;
	}
	if (!(x0 <= x1)) {
		x0 = 0;
		x1 = 1;
	}
	if (!(y0 <= y1)) {
		y0 = 0;
		y1 = 1;
	}
	if (x1 - x0 < 1e-12)
		x1 = x0 + 1;
	if (y1 - y0 < 1e-12) {
		y0 -= 0.5;
		y1 += 0.5;
	}
	double ys = nice_step(y1 - y0, 5), xs = nice_step(x1 - x0, 6);
	if (!s->fixed_y) {
		y0 = floor(y0 / ys) * ys;
		y1 = ceil(y1 / ys) * ys;
	}
#define PX(v) (left + plot_w * ((v) - x0) / (x1 - x0))
#define PY(v) (bottom - plot_h * ((v) - y0) / (y1 - y0))
	open_svg(b, s->title, h);
	for (double v = y0; v <= y1 + ys / 2; v += ys) {
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", left, PY(v), W - right, PY(v));
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" " FONT ">", left - 4, PY(v) + 4);
		num(b, v);
		sbuf_adds(b, "</text>\n");
	}
	for (double v = ceil(x0 / xs) * xs; v <= x1 + xs / 1e6; v += xs) {
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>", PX(v), bottom, PX(v), bottom + 4);
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT ">", PX(v), bottom + 16);
		num(b, v);
		sbuf_adds(b, "</text>\n");
	}
	if (s->nband > 1) {
		sbuf_adds(b, "<path fill=\"#9ec5f0\" fill-opacity=\"0.45\" stroke=\"none\" d=\"");
		for (size_t i = 0; i < s->nband; i++)
			sbuf_addf(b, "%c%.1f %.1f", i ? 'L' : 'M', PX(s->band_x[i]), PY(fmax(y0, fmin(y1, s->band_hi[i]))));
		for (size_t i = s->nband; i-- > 0;)
			sbuf_addf(b, "L%.1f %.1f", PX(s->band_x[i]), PY(fmax(y0, fmin(y1, s->band_lo[i]))));
		sbuf_adds(b, "Z\"/>\n");
	}
	for (size_t k = 0; k < s->nseries; k++) {
		const svg_line_series *l = &s->series[k];
		sbuf_addf(b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s d=\"", l->color,
		          l->dashed ? " stroke-dasharray=\"5 3\"" : "");
		int pen = 0;
		for (size_t i = 0; i < l->n; i++) {
			if (!isfinite(l->y[i]) || !isfinite(l->x[i])) {
				pen = 0;
				continue;
			}
			sbuf_addf(b, "%c%.1f %.1f", pen ? 'L' : 'M', PX(l->x[i]), PY(fmax(y0, fmin(y1, l->y[i]))));
			pen = 1;
		}
		sbuf_adds(b, "\"/>\n");
		if (l->n == 1 && isfinite(l->y[0]))
			sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", PX(l->x[0]), PY(l->y[0]), l->color);
	}
	if (s->marker) {
		double x = PX(s->marker_x);
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"1.5\" "
		             "stroke-dasharray=\"4 3\"/>",
		          x, top, x, bottom);
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"11\" fill=\"#c0392b\">", x + (x > W / 2 ? -4 : 4),
		          top + 12, x > W / 2 ? "end" : "start");
		esc_cut(b, s->marker_label ? s->marker_label : "", 80);
		sbuf_adds(b, "</text>\n");
	}
#undef PX
#undef PY
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>", left, bottom, W - right, bottom);
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n", left, top, left, bottom);
	double lx = left;
	for (size_t k = 0; k < s->nseries; k++, lx += 150)
		legend(b, lx, 8, s->series[k].name, s->series[k].color, s->series[k].dashed);
	if (s->nband > 1 && s->band_name)
		legend(b, lx, 8, s->band_name, "#9ec5f0", 0);
	if (s->xlabel) {
		sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT ">", left + plot_w / 2, h - 10);
		esc(b, s->xlabel);
		sbuf_adds(b, "</text>\n");
	}
	if (s->ylabel) {
		sbuf_addf(b, "<text x=\"12\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\" " FONT ">",
		          top + plot_h / 2, top + plot_h / 2);
		esc(b, s->ylabel);
		sbuf_adds(b, "</text>\n");
	}
	sbuf_adds(b, "</svg>\n");
}
