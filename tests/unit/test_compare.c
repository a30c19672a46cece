/* Unit tests for the comparison engines: the loss-log parser and aligner, input
 * resolution, the .npy reader (every dtype, byte order and memory order), the streaming
 * dump comparison (chunk boundaries, threads, NaN, cosine edge cases, corrupt files) and
 * msprobe dump.json directories. */
#include "testutil.h"

#include "compare_dump.h"
#include "compare_loss.h"
#include "err.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>

/* --- loss logs --- */

static loss_series parse_ok(const char *text)
{
	loss_series s;
	assert_int_equal(loss_parse(&s, "log.txt", text, strlen(text), NULL), 0);
	return s;
}

static void test_loss_shapes(void **state)
{
	(void)state;
	loss_series s = parse_ok("epoch 1 step 10 loss 2.31\nstep 20 loss: 2.05\nstep 30, loss=1.9\n");
	assert_int_equal(s.n, 3);
	assert_false(s.ordinal);
	assert_int_equal(s.pts[0].step, 10);
	assert_true(fabs(s.pts[2].loss - 1.9) < 1e-12);
	loss_series_done(&s);

	s = parse_ok("iter: 10, loss: 2.31\niter: 20, loss: 2.20\n");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pts[1].step, 20);
	loss_series_done(&s);

	/* dict and JSON lines, keys in any order; eval losses are not training losses */
	s = parse_ok("{'loss': 2.5, 'step': 3}\n{\"step\": 4, \"loss\": 2.4}\n{'eval_loss': 9.0, 'step': 5}\n");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pts[1].step, 4);
	assert_true(fabs(s.pts[1].loss - 2.4) < 1e-12);
	loss_series_done(&s);

	/* Megatron: "lm loss" with an exponent; "loss scale" and "iterations" are not it */
	s = parse_ok(" iteration       10/    1000 | elapsed time per iteration (ms): 1234.5 | lm loss: 2.310000E+00 |"
	             " loss scale: 65536.0 | number of skipped iterations:   0 |\n"
	             " iteration       20/    1000 | lm loss: 2.100000E+00 | loss scale: 65536.0 |\n");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pts[0].step, 10);
	assert_true(fabs(s.pts[0].loss - 2.31) < 1e-12);
	loss_series_done(&s);

	/* torch tensors printed as values, CRLF line ends, validation lines ignored */
	s = parse_ok("step 1 loss: tensor(1.5000, device='npu:0')\r\nvalidation loss 3.0 step 1\r\nstep 2 train_loss=1.25\r\n");
	assert_int_equal(s.n, 2);
	assert_true(fabs(s.pts[0].loss - 1.5) < 1e-12);
	assert_true(fabs(s.pts[1].loss - 1.25) < 1e-12);
	loss_series_done(&s);
}

/* Chinese labels: the loss, its step and epoch, the other losses left out; GBK lines too */
static void test_loss_chinese_labels(void **state)
{
	(void)state;
	loss_series s = parse_ok("第 1 步 损失: 2.5\n第 2 步  损失为 2.25\n第 3 步 损失：2.0 验证损失：9.0\n");
	assert_int_equal(s.n, 3);
	assert_false(s.ordinal);
	assert_int_equal(s.pts[2].step, 3);
	assert_true(fabs(s.pts[1].loss - 2.25) < 1e-12);
	assert_true(fabs(s.pts[2].loss - 2.0) < 1e-12);
	loss_series_done(&s);

	/* epoch and batch (第 2 轮 第 3 批) restart per epoch: steps run on across epochs;
	 * a validation loss first on the line is passed over for the training loss */
	s = parse_ok("第 1 轮 第 1 批 验证损失=8 训练损失=1.5\n第 1 轮 第 2 批 训练损失=1.4\n"
	             "第 2 轮 第 1 批 训练损失=1.3\n第 2 轮 第 2 批 训练损失=1.2\n");
	assert_int_equal(s.n, 4);
	assert_int_equal(s.pts[3].step, 4);
	assert_true(fabs(s.pts[0].loss - 1.5) < 1e-12);
	loss_series_done(&s);

	/* key then number, with totals; lines of validation, testing and val/eval keys are not training */
	s = parse_ok("迭代 10/200 | 损失 0.5\n[验证] 迭代 10 损失 0.9\n【测试】 损失：0.8\n步数: 20/200, val 损失: 0.7, 损失: 0.4\n");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pts[0].step, 10);
	assert_int_equal(s.pts[1].step, 20);
	assert_true(fabs(s.pts[1].loss - 0.4) < 1e-12);
	assert_int_equal(s.not_training, 2);
	loss_series_done(&s);

	/* the same in GBK, as a host set to zh_CN.GBK writes it: 第 1 步 损失：0.5 */
	s = parse_ok("\xb5\xda 1 \xb2\xbd \xcb\xf0\xca\xa7\xa3\xba" "0.5\n\xb5\xda 2 \xb2\xbd \xcb\xf0\xca\xa7\xa3\xbanan\n");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pts[1].step, 2);
	assert_true(isnan(s.pts[1].loss));
	loss_series_done(&s);
}

static void test_loss_ordinals_nan_duplicates(void **state)
{
	(void)state;
	/* no steps: the loss line's ordinal */
	loss_series s = parse_ok("{'loss': 2.0, 'epoch': 0.01}\nnoise\n{'loss': 1.5, 'epoch': 0.02}\nloss=nan\n{'loss': 1.0}\n");
	assert_true(s.ordinal);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.nonfinite, 1);
	/* the NaN keeps its slot: the point after it is the fourth, not the third */
	assert_true(isnan(s.pts[2].loss));
	assert_int_equal(s.pts[3].step, 4);
	assert_true(fabs(s.pts[3].loss - 1.0) < 1e-12);
	loss_series_done(&s);

	/* NaN and inf are points with a count; a repeated step keeps its last value; a stray
	 * stepless loss line is dropped when the others have steps */
	s = parse_ok("step 1 loss 3\nstep 2 loss inf\nstep 2 loss -Infinity\nstep 3 loss 2\nstep 3 loss 1.75\nfinal loss 1.7\n");
	assert_false(s.ordinal);
	assert_int_equal(s.nonfinite, 2);
	assert_int_equal(s.duplicates, 2);
	assert_int_equal(s.no_step, 1);
	assert_int_equal(s.n, 3);
	assert_true(isinf(s.pts[1].loss) && s.pts[1].loss < 0);
	assert_true(fabs(s.pts[2].loss - 1.75) < 1e-12);
	loss_series_done(&s);

	/* steps out of order are sorted */
	s = parse_ok("step 30 loss 1\nstep 10 loss 3\nstep 20 loss 2\n");
	assert_int_equal(s.pts[0].step, 10);
	assert_int_equal(s.pts[2].step, 30);
	loss_series_done(&s);
}

static void test_loss_refused(void **state)
{
	(void)state;
	loss_series s;
	const char *none = "training started\nloss scale: 1024\nall done\n";
	assert_int_equal(loss_parse(&s, "run.log", none, strlen(none), NULL), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "run.log"));
	assert_non_null(strstr(err_message(), "no loss values"));
	assert_null(strchr(err_message(), '\n'));
	assert_int_equal(loss_parse(&s, "bin.log", "loss 1\0\1", 8, NULL), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "binary"));
	assert_int_equal(loss_parse(&s, "e.log", "", 0, NULL), FERRY_ECORRUPT);
	/* a log of NaNs is a run that blew up at once: it parses, and the comparison fails */
	const char *nan = "step 1 loss nan\nstep 2 loss NaN\n";
	assert_int_equal(loss_parse(&s, "nan.log", nan, strlen(nan), NULL), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.nonfinite, 2);
	loss_series_done(&s);
}

static void test_loss_compare(void **state)
{
	(void)state;
	loss_series a = parse_ok("step 1 loss 4\nstep 2 loss 2\nstep 3 loss 1\nstep 4 loss 0\nstep 9 loss 1\n");
	loss_series b = parse_ok("step 0 loss 5\nstep 1 loss 4\nstep 2 loss 2.02\nstep 3 loss 1.05\nstep 4 loss 0.001\n"
	                         "step 10 loss 0.9\n");
	loss_result r;
	loss_compare(&r, &a, &b, 0.02);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.only_a, 1);
	assert_int_equal(r.only_b, 2);
	assert_false(r.truncated);
	/* rel errors: 0, 0.01, 0.05, 0.001 (absolute when the baseline is 0) */
	assert_true(fabs(r.rows[1].rel_err - 0.01) < 1e-9);
	assert_true(fabs(r.rows[3].rel_err - 0.001) < 1e-12);
	assert_true(fabs(r.mean_rel - 0.061 / 4) < 1e-9);
	assert_true(fabs(r.max_rel - 0.05) < 1e-9);
	assert_int_equal(r.max_rel_step, 3);
	assert_true(r.exceeded);
	assert_int_equal(r.first_exceed_step, 3);
	/* the mean is within 2 %, but A's step 9 has no partner (B logged step 10): 4 of A's 5
	 * points, steps 1-4 of A's 1-9, cannot vouch for the run */
	assert_true(r.mean_rel <= 0.02);
	assert_int_equal(r.a_covered, 4);
	assert_true(r.incomplete);
	assert_false(r.pass);
	assert_int_equal(r.final_step_a, 9);
	assert_true(fabs(r.final_b - 0.9) < 1e-12);

	sbuf t;
	sbuf_init(&t);
	loss_render_text(&t, &r, &a, &b, "gpu.log", "npu.log", NULL);
	assert_non_null(strstr(t.buf, "gpu.log"));
	assert_non_null(strstr(t.buf, "verdict: FAIL — aligned 4 of A's 5 steps"));
	assert_non_null(strstr(t.buf, "first step above the tolerance: 3"));
	assert_non_null(strstr(t.buf, "▁") ? strstr(t.buf, "▁") : strstr(t.buf, "█"));
	sbuf_done(&t);

	cJSON *j = loss_result_json(&r, &a, &b, NULL, NULL);
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "fail");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "incomplete")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "steps")), 4);
	assert_int_equal((int)cJSON_GetObjectItem(j, "first_exceed_step")->valuedouble, 3);
	cJSON_Delete(j);
	loss_result_done(&r);

	/* a tighter tolerance fails */
	loss_compare(&r, &a, &b, 0.01);
	assert_false(r.pass);
	loss_result_done(&r);

	/* no common step: a result, not an error */
	loss_series c = parse_ok("step 100 loss 1\n");
	loss_compare(&r, &a, &c, 0.02);
	assert_int_equal(r.n, 0);
	assert_false(r.pass);
	sbuf_init(&t);
	loss_render_text(&t, &r, &a, &c, "a", "c", NULL);
	assert_non_null(strstr(t.buf, "share no step"));
	sbuf_done(&t);
	loss_result_done(&r);
	loss_series_done(&a);
	loss_series_done(&b);
	loss_series_done(&c);
}

/* A series of n steps, step s's loss curve(s) * factor(s). */
static loss_series series_of(long long from, long long to, long long every, double (*factor)(long long))
{
	sbuf t;
	sbuf_init(&t);
	for (long long s = from; s <= to; s += every)
		sbuf_addf(&t, "step %lld loss %.9g\n", s, (3.0 * exp(-(double)s / 300.0) + 0.1) * (factor ? factor(s) : 1.0));
	loss_series r = parse_ok(t.buf);
	sbuf_done(&t);
	return r;
}

static double five_after_1000(long long s) { return s == 1000 ? 1.0 : 5.0; }
static double thrice_at_end(long long s) { return s > 997 ? 3.0 : 1.0; }
static double wobble(long long s) { return 1.0 + 0.004 * sin((double)s * 1.7); }

/* The verdict rests on enough of A's run, and on its end as well as its mean. */
static void test_loss_coverage_and_end(void **state)
{
	(void)state;
	loss_series a = series_of(1, 1000, 1, NULL);
	/* B logged steps 1000-2000: the one step it shares with A agrees */
	loss_series b = series_of(1000, 2000, 1, five_after_1000);
	loss_result r;
	loss_compare(&r, &a, &b, 0.02);
	assert_int_equal(r.n, 1);
	assert_true(r.mean_rel == 0.0);
	assert_false(r.truncated); /* B goes past A's end … */
	assert_true(r.incomplete); /* … but compares one step of A's 1000 */
	assert_false(r.pass);
	char why[200];
	assert_non_null(strstr(loss_fail_reason(why, sizeof why, &r), "aligned 1 of A's 1000 steps"));
	cJSON *j = loss_result_json(&r, &a, &b, NULL, NULL);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "incomplete")));
	assert_true(cJSON_GetObjectItem(j, "aligned_coverage")->valuedouble < 0.01);
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "fail");
	cJSON_Delete(j);
	loss_result_done(&r);
	loss_series_done(&b);

	/* B logging every 4th step over the whole run covers it */
	b = series_of(4, 1000, 4, NULL);
	loss_compare(&r, &a, &b, 0.02);
	assert_int_equal(r.n, 250);
	assert_false(r.incomplete);
	assert_true(r.pass);
	loss_result_done(&r);
	loss_series_done(&b);

	/* B resumed at step 501: A's first half was never compared */
	b = series_of(501, 1000, 1, NULL);
	loss_compare(&r, &a, &b, 0.02);
	assert_true(r.incomplete);
	assert_false(r.pass);
	loss_result_done(&r);
	loss_series_done(&b);

	/* the last 3 of 1000 steps at 3x: the mean is 0.6 %, the last 100 steps' 6 % */
	b = series_of(1, 1000, 1, thrice_at_end);
	loss_compare(&r, &a, &b, 0.01);
	assert_true(r.mean_rel < 0.01);
	assert_int_equal(r.end_n, 100);
	assert_int_equal(r.end_from_step, 901);
	assert_true(fabs(r.end_mean_rel - 0.06) < 1e-6);
	assert_true(r.end_exceeded);
	assert_false(r.pass);
	assert_non_null(strstr(loss_fail_reason(why, sizeof why, &r), "last 100 aligned steps"));
	loss_result_done(&r);
	loss_series_done(&b);

	/* agreeing noise passes to the end */
	b = series_of(1, 1000, 1, wobble);
	loss_compare(&r, &a, &b, 0.01);
	assert_false(r.end_exceeded);
	assert_true(r.pass);
	loss_result_done(&r);
	loss_series_done(&b);
	loss_series_done(&a);
}

/* A run that blows up or stops early fails, whatever its mean error says. */
static void test_loss_blowup_and_truncation(void **state)
{
	(void)state;
	loss_series a = parse_ok("step 1 loss 4\nstep 2 loss 3\nstep 3 loss 2\nstep 4 loss 1.5\nstep 5 loss 1.2\n"
	                         "step 6 loss 1.1\nstep 7 loss 1.0\nstep 8 loss 0.9\nstep 9 loss 0.8\nstep 10 loss 0.7\n");
	/* B matches A exactly until step 4, then NaN to the end */
	loss_series b = parse_ok("step 1 loss 4\nstep 2 loss 3\nstep 3 loss 2\nstep 4 loss 1.5\nstep 5 loss nan\n"
	                         "step 6 loss nan\nstep 7 loss inf\nstep 8 loss nan\nstep 9 loss nan\nstep 10 loss nan\n");
	loss_result r;
	loss_compare(&r, &a, &b, 0.02);
	assert_int_equal(r.finite, 4);
	assert_true(r.mean_rel == 0.0); /* the finite steps agree perfectly … */
	assert_false(r.pass);           /* … and still the run failed */
	assert_true(r.blowup);
	assert_int_equal(r.blowup_step, 5);
	assert_int_equal(r.nonfinite_b, 6);
	char why[160];
	assert_non_null(strstr(loss_fail_reason(why, sizeof why, &r), "step 5"));
	sbuf t;
	sbuf_init(&t);
	loss_render_text(&t, &r, &a, &b, "gpu.log", "npu.log", NULL);
	assert_non_null(strstr(t.buf, "verdict: FAIL"));
	assert_non_null(strstr(t.buf, "blow-up"));
	assert_non_null(strstr(t.buf, "×"));
	sbuf_done(&t);
	cJSON *j = loss_result_json(&r, &a, &b, NULL, NULL);
	assert_int_equal((int)cJSON_GetObjectItem(j, "blowup_step")->valuedouble, 5);
	char *txt = cJSON_PrintUnformatted(j);
	assert_null(strstr(txt, "nan")); /* JSON holds null, never a bare nan */
	free(txt);
	cJSON_Delete(j);
	loss_result_done(&r);
	loss_series_done(&b);

	/* one NaN in the middle: not a blow-up, still a failure at that step */
	b = parse_ok("step 1 loss 4\nstep 2 loss 3\nstep 3 loss nan\nstep 4 loss 1.5\nstep 5 loss 1.2\n"
	             "step 6 loss 1.1\nstep 7 loss 1.0\nstep 8 loss 0.9\nstep 9 loss 0.8\nstep 10 loss 0.7\n");
	loss_compare(&r, &a, &b, 0.02);
	assert_false(r.pass);
	assert_false(r.blowup);
	assert_int_equal(r.first_nonfinite_step, 3);
	loss_result_done(&r);
	/* the same NaN in the baseline is not B's fault */
	loss_compare(&r, &b, &b, 0.02);
	assert_true(r.pass);
	loss_result_done(&r);
	loss_series_done(&b);

	/* B stops at step 3 of A's 10: truncated, although the steps it has agree */
	b = parse_ok("step 1 loss 4\nstep 2 loss 3\nstep 3 loss 2\n");
	loss_compare(&r, &a, &b, 0.02);
	assert_true(r.mean_rel == 0.0);
	assert_true(r.truncated);
	assert_false(r.pass);
	assert_non_null(strstr(loss_fail_reason(why, sizeof why, &r), "stops at step 3"));
	loss_result_done(&r);
	/* a baseline shorter than B is fine: compared on what both cover */
	loss_compare(&r, &b, &a, 0.02);
	assert_true(r.pass);
	loss_result_done(&r);
	loss_series_done(&b);

	/* a log of NaNs from the first step is a blow-up at step 1 */
	b = parse_ok("step 1 loss nan\nstep 2 loss nan\nstep 3 loss nan\nstep 4 loss nan\nstep 5 loss nan\n"
	             "step 6 loss nan\nstep 7 loss nan\nstep 8 loss nan\nstep 9 loss nan\nstep 10 loss nan\n");
	loss_compare(&r, &a, &b, 0.02);
	assert_false(r.pass);
	assert_int_equal(r.blowup_step, 1);
	loss_result_done(&r);
	loss_series_done(&b);

	/* without steps, ordinal alignment keeps the NaN's slot: B's 3rd value is NaN and
	 * its 4th still lines up with A's 4th */
	loss_series oa = parse_ok("loss: 4\nloss: 3\nloss: 2\nloss: 1\n");
	loss_series ob = parse_ok("loss: 4\nloss: 3\nloss: nan\nloss: 1\n");
	loss_compare(&r, &oa, &ob, 0.02);
	assert_int_equal(r.n, 4);
	assert_true(r.rows[3].rel_err == 0.0);
	assert_int_equal(r.first_nonfinite_step, 3);
	assert_false(r.pass);
	loss_result_done(&r);
	loss_series_done(&oa);
	loss_series_done(&ob);
	loss_series_done(&a);
}

/* Progress bars (tqdm, Lightning) redraw with \r; evaluation and summaries stay out. */
static void test_loss_bars_and_eval(void **state)
{
	(void)state;
	/* two epochs of 3 steps, each bar redrawn once per step and closed with a repeat */
	const char *bar = "Epoch 0:   0%|          | 0/3 [00:00<?, ?it/s]"
	                  "\rEpoch 0:  33%|███▎      | 1/3 [00:00<00:00, 9.1it/s, loss=2.5, v_num=0]"
	                  "\rEpoch 0:  67%|██████▋   | 2/3 [00:00<00:00, 9.2it/s, loss=2.25, v_num=0]"
	                  "\rEpoch 0: 100%|██████████| 3/3 [00:00<00:00, 9.3it/s, loss=2, v_num=0]"
	                  "\rEpoch 0: 100%|██████████| 3/3 [00:00<00:00, 9.3it/s, loss=2, v_num=0]\n"
	                  "Validation DataLoader 0: 100%|██████████| 2/2 [00:00<00:00, val_loss=9.0]\n"
	                  "\rEpoch 1:  33%|███▎      | 1/3 [00:00<00:00, 9.1it/s, loss=1.75, v_num=0]"
	                  "\rEpoch 1:  67%|██████▋   | 2/3 [00:00<00:00, 9.2it/s, loss=1.5, v_num=0]"
	                  "\rEpoch 1: 100%|██████████| 3/3 [00:00<00:00, 9.3it/s, loss=1.25, v_num=0]\n";
	loss_series s = parse_ok(bar);
	assert_false(s.ordinal);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.pts[0].step, 1);
	assert_int_equal(s.pts[3].step, 4); /* epoch 1 continues after epoch 0's 3 steps */
	assert_true(fabs(s.pts[5].loss - 1.25) < 1e-12);
	assert_int_equal(s.pts[5].step, 6);
	assert_int_equal(s.duplicates, 1);
	loss_series_done(&s);

	/* detr/torchvision: "Test:" lines are evaluation; HF Trainer: eval dicts and the
	 * closing train_loss summary are not training steps */
	s = parse_ok("Epoch: [0]  [ 0/4]  eta: 0:00:01  lr: 0.0001  loss: 3.0 (3.0)\n"
	             "Epoch: [0]  [ 2/4]  eta: 0:00:01  lr: 0.0001  loss: 2.0 (2.5)\n"
	             "Test:  [0/2]  eta: 0:00:00  loss: 7.5 (7.5)\n"
	             "Epoch: [1]  [ 0/4]  eta: 0:00:01  lr: 0.0001  loss: 1.5 (1.5)\n");
	assert_int_equal(s.n, 3);
	assert_int_equal(s.not_training, 1);
	assert_true(fabs(s.pts[2].loss - 1.5) < 1e-12);
	loss_series_done(&s);
	s = parse_ok("{'loss': 2.0, 'learning_rate': 5e-05, 'epoch': 0.5}\n{'eval_loss': 2.2, 'epoch': 0.5}\n"
	             "{'loss': 1.5, 'learning_rate': 4e-05, 'epoch': 1.0}\n"
	             "{'train_runtime': 3.2, 'train_samples_per_second': 10.0, 'train_loss': 1.75, 'epoch': 1.0}\n");
	assert_int_equal(s.n, 2);
	assert_true(fabs(s.pts[1].loss - 1.5) < 1e-12);
	assert_int_equal(s.not_training, 1);
	loss_series_done(&s);
}

/* CSV exports: Lightning metrics.csv, TensorBoard scalars and W&B. */
static void test_loss_csv(void **state)
{
	(void)state;
	/* Lightning writes one row per log call: training rows, validation rows */
	loss_series s = parse_ok("epoch,step,train_loss_epoch,train_loss_step,val_loss\n"
	                         "0,0,,2.5,\n0,1,,2.25,\n0,1,,,3.0\n0,1,2.4,,\n1,2,,1.75,\n");
	assert_false(s.ordinal);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.column, "train_loss_step");
	assert_int_equal(s.pts[2].step, 2);
	assert_true(fabs(s.pts[2].loss - 1.75) < 1e-12);
	loss_series_done(&s);

	s = parse_ok("Wall time,Step,Value\n1700000000.5,10,2.5\n1700000001.5,20,NaN\n1700000002.5,30,1.5\n");
	assert_int_equal(s.n, 3);
	assert_string_equal(s.column, "Value");
	assert_int_equal(s.pts[1].step, 20);
	assert_true(isnan(s.pts[1].loss));
	loss_series_done(&s);

	/* W&B quotes every field and adds __MIN/__MAX envelopes */
	s = parse_ok("\xef\xbb\xbf\"Step\",\"gpu-run - train/loss\",\"gpu-run - train/loss__MIN\",\"gpu-run - train/loss__MAX\"\r\n"
	             "\"1\",\"2.5\",\"2.5\",\"2.5\"\r\n\"2\",\"2.0\",\"2.0\",\"2.0\"\r\n");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pts[1].step, 2);
	assert_string_equal(s.column, "gpu-run - train/loss");
	loss_series_done(&s);

	/* two loss columns: the user chooses; the error lists them */
	const char *two = "step,train_loss,aux_loss\n1,2.0,0.5\n2,1.5,0.25\n";
	assert_int_equal(loss_parse(&s, "m.csv", two, strlen(two), NULL), FERRY_EUSAGE);
	assert_non_null(strstr(err_message(), "m.csv"));
	assert_non_null(strstr(err_message(), "train_loss, aux_loss"));
	assert_non_null(strstr(err_message(), "--column"));
	assert_int_equal(loss_parse(&s, "m.csv", two, strlen(two), "aux_loss"), 0);
	assert_true(fabs(s.pts[1].loss - 0.25) < 1e-12);
	loss_series_done(&s);
	/* a W&B column named without its run prefix */
	const char *wb = "Step,npu-run - train/loss,npu-run - aux/loss\n1,2,1\n";
	assert_int_equal(loss_parse(&s, "w.csv", wb, strlen(wb), "train/loss"), 0);
	assert_true(fabs(s.pts[0].loss - 2.0) < 1e-12);
	loss_series_done(&s);
	assert_int_equal(loss_parse(&s, "m.csv", two, strlen(two), "nope"), FERRY_EUSAGE);
	assert_non_null(strstr(err_message(), "\"nope\""));
	const char *bad = "step,loss\n1,abc\n";
	assert_int_equal(loss_parse(&s, "b.csv", bad, strlen(bad), NULL), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "b.csv"));
	assert_null(strchr(err_message(), '\n'));
}

/* The console loss table, mechanism by mechanism: a point per epoch from its last redraw,
 * escape sequences, an unfinished epoch, a validation table whose class names are digits
 * without its header, a bar of unknown total, a table stepped by a step column, and a
 * header alone (no rows) left to the text reader. */
static void test_loss_table(void **state)
{
	(void)state;
	loss_series s;
	const char *head = "      Epoch    GPU_mem   box_loss   obj_loss  Instances       Size\n";
	/* two redraws of epoch 0 (the first a running mean of 1 batch), one of epoch 1 with
	 * "\033[K", and epoch 2 killed at 1/4; then class rows "0" and "1" lined up */
	char log[2048];
	snprintf(log, sizeof log,
	         "%s\r        0/2         0G        0.9        0.5          3         16:  25%%|##  | 1/4 [00:01<00:03]"
	         "\r        0/2         0G        0.7        0.4          3         16: 100%%|####| 4/4 [00:04<00:00]\n"
	         "                   all         32         16        0.5          1      0.188\n"
	         "%s\r\033[K        1/2         0G        0.6        0.3          3         16: 100%% ━━━━ 4/4 1.0it/s 4.0s\n"
	         "                     0         32          0      0.941          0          0\n"
	         "%s\r        2/2         0G        0.5        0.2          3         16:  25%%|#   | 1/4 [00:01<00:03]",
	         head, head, head);
	assert_int_equal(loss_parse(&s, "t.log", log, strlen(log), NULL), FERRY_EUSAGE);
	assert_non_null(strstr(err_message(), "t.log: several loss columns (box_loss, obj_loss)"));
	assert_int_equal(loss_parse(&s, "t.log", log, strlen(log), "box_loss+obj_loss"), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.table, LOSS_TABLE_EPOCHS);
	assert_int_equal(s.partial, 1);
	assert_int_equal(s.pts[0].step, 0);
	assert_true(fabs(s.pts[0].loss - 1.1) < 1e-12); /* the last redraw, not the first */
	assert_int_equal(s.pts[1].step, 1);
	assert_true(fabs(s.pts[1].loss - 0.9) < 1e-12);
	assert_string_equal(s.column, "box_loss + obj_loss");
	loss_series_done(&s);
	/* a bar of unknown total: its last redraw stands */
	const char *open_total = "Epoch GPU_mem loss Size\n  0/1  0G  2.5  16: 10%|#  | 5/? [00:01]\n";
	assert_int_equal(loss_parse(&s, "u.log", open_total, strlen(open_total), NULL), 0);
	assert_int_equal(s.n, 1);
	assert_true(fabs(s.pts[0].loss - 2.5) < 1e-12);
	loss_series_done(&s);
	/* a table stepped by its step column, without bars: each row a step */
	const char *steps = "step   loss     lr\n  10   2.31   0.01\n  20   2.05   0.01\n  30   1.97   0.01\n";
	assert_int_equal(loss_parse(&s, "s.log", steps, strlen(steps), NULL), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.table, LOSS_TABLE_STEPS);
	assert_int_equal(s.pts[2].step, 30);
	loss_series_done(&s);
	/* a header whose rows never come: not a table; the text reader has the log */
	const char *alone = "Epoch GPU_mem box_loss Size\nstep 1 loss 0.5\nstep 2 loss 0.4\n";
	assert_int_equal(loss_parse(&s, "a.log", alone, strlen(alone), NULL), 0);
	assert_int_equal(s.table, 0);
	assert_int_equal(s.n, 2);
	loss_series_done(&s);
}

static void test_resolve(void **state)
{
	(void)state;
	cJSON *rows = cJSON_Parse("[{\"id\":1,\"kind\":\"loss-log\",\"label\":\"gpu\",\"path\":\"loss-log/aa-gpu.log\",\"sha256\":\"aa\"},"
	                          "{\"id\":2,\"kind\":\"dump\",\"label\":\"gpu\",\"path\":\"ref:/data/dump\",\"sha256\":\"bb\"},"
	                          "{\"id\":3,\"kind\":\"loss-log\",\"label\":\"gpu\",\"path\":\"loss-log/cc-gpu2.log\",\"sha256\":\"cc\"}]");
	compare_input in;
	assert_int_equal(compare_resolve(&in, rows, "/p/.ferry/artifacts", "1", "loss-log"), 0);
	assert_string_equal(in.path, "/p/.ferry/artifacts/loss-log/aa-gpu.log");
	assert_int_equal(in.artifact, 1);
	assert_string_equal(in.sha256, "aa");
	compare_input_done(&in);
	assert_int_equal(compare_resolve(&in, rows, "/p/.ferry/artifacts", "#2", "dump"), 0);
	assert_string_equal(in.path, "/data/dump");
	assert_null(in.sha256); /* a reference may have changed since it was ingested */
	compare_input_done(&in);
	/* a label: the newest artifact of the wanted kind */
	assert_int_equal(compare_resolve(&in, rows, "/p/.ferry/artifacts", "gpu", "loss-log"), 0);
	assert_int_equal(in.artifact, 3);
	compare_input_done(&in);
	assert_int_equal(compare_resolve(&in, rows, "/p/.ferry/artifacts", "gpu", "dump"), 0);
	assert_int_equal(in.artifact, 2);
	cJSON *j = compare_input_json(&in, "ff", NULL);
	assert_string_equal(cJSON_GetObjectItem(j, "sha256")->valuestring, "ff");
	cJSON_Delete(j);
	compare_input_done(&in);
	/* a path */
	char *dir = tu_mkdtemp();
	tu_write(dir, "x.log", "step 1 loss 1\n");
	char *p = util_path_join(dir, "x.log");
	assert_int_equal(compare_resolve(&in, rows, "/p/.ferry/artifacts", p, "loss-log"), 0);
	assert_string_equal(in.path, p);
	assert_int_equal(in.artifact, 0);
	compare_input_done(&in);
	free(p);
	assert_int_equal(compare_resolve(&in, rows, "/p", "9", "dump"), FERRY_ENOTFOUND);
	assert_non_null(strstr(err_message(), "artifact 9"));
	assert_int_equal(compare_resolve(&in, rows, "/p", "nowhere.log", "dump"), FERRY_ENOTFOUND);
	assert_non_null(strstr(err_message(), "nowhere.log"));
	tu_rmdir(dir);
	free(dir);
	cJSON_Delete(rows);
}

/* --- .npy --- */

/* Builds a version-1 .npy in memory: header dict text, padded to 64, then data. */
static size_t make_npy(unsigned char *out, const char *dict, const void *data, size_t len)
{
	size_t dl = strlen(dict);
	size_t hl = dl + 1;
	while ((10 + hl) % 64)
		hl++;
	memcpy(out, "\x93NUMPY\x01\x00", 8);
	out[8] = (unsigned char)(hl & 0xff);
	out[9] = (unsigned char)(hl >> 8);
	memcpy(out + 10, dict, dl);
	memset(out + 10 + dl, ' ', hl - dl - 1);
	out[10 + hl - 1] = '\n';
	memcpy(out + 10 + hl, data, len);
	return 10 + hl + len;
}

static char *write_npy(const char *dir, const char *name, const char *descr, int fortran, const char *shape,
                       const void *data, size_t len)
{
	unsigned char *buf = xmalloc(len + 256);
	char dict[200];
	snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
	         fortran ? "True" : "False", shape);
	size_t n = make_npy(buf, dict, data, len);
	char *path = util_path_join(dir, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	util_mkdirs(path, 0755);
	*slash = '/';
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
	free(buf);
	return path;
}

static void write_f32(const char *dir, const char *name, const float *v, size_t n, const char *shape)
{
	free(write_npy(dir, name, "<f4", 0, shape, v, n * sizeof *v));
}

static void test_npy_header(void **state)
{
	(void)state;
	unsigned char buf[512];
	npy_info h;
	static const struct {
		const char *descr;
		char kind;
		int size, be;
	} dt[] = { { "<f2", 'f', 2, 0 }, { "<f4", 'f', 4, 0 }, { "<f8", 'f', 8, 0 }, { ">f2", 'f', 2, 1 },
		       { ">f4", 'f', 4, 1 }, { ">f8", 'f', 8, 1 }, { "|i1", 'i', 1, 0 }, { "<i2", 'i', 2, 0 },
		       { "<i4", 'i', 4, 0 }, { ">i8", 'i', 8, 1 }, { "|u1", 'u', 1, 0 }, { ">u2", 'u', 2, 1 },
		       { "<u4", 'u', 4, 0 }, { "<u8", 'u', 8, 0 }, { "|b1", 'b', 1, 0 } };
	for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
		char dict[128];
		snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (2, 3), }", dt[i].descr);
		size_t n = make_npy(buf, dict, "", 0);
		assert_int_equal(npy_parse_header(&h, "t.npy", buf, n), 0);
		assert_int_equal(h.kind, dt[i].kind);
		assert_int_equal(h.itemsize, dt[i].size);
		assert_int_equal(h.big_endian, dt[i].be);
		assert_int_equal(h.count, 6);
		assert_int_equal(h.data_offset % 64, 0);
	}
	/* key order free, Fortran order, scalar, 1-D, Python 2 longs */
	size_t n = make_npy(buf, "{'shape': (4,), 'fortran_order': True, 'descr': '<f8'}", "", 0);
	assert_int_equal(npy_parse_header(&h, "t.npy", buf, n), 0);
	assert_true(h.fortran);
	assert_int_equal(h.ndim, 1);
	char shape[32];
	npy_shape_text(shape, sizeof shape, &h);
	assert_string_equal(shape, "(4,)");
	n = make_npy(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", "", 0);
	assert_int_equal(npy_parse_header(&h, "t.npy", buf, n), 0);
	assert_int_equal(h.ndim, 0);
	assert_int_equal(h.count, 1);
	n = make_npy(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 0L), }", "", 0);
	assert_int_equal(npy_parse_header(&h, "t.npy", buf, n), 0);
	assert_int_equal(h.count, 0);
	/* version 2: a 4-byte header length */
	n = make_npy(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "", 0);
	unsigned char v2[600];
	memcpy(v2, "\x93NUMPY\x02\x00", 8);
	v2[8] = buf[8], v2[9] = buf[9], v2[10] = 0, v2[11] = 0;
	memcpy(v2 + 12, buf + 10, n - 10);
	assert_int_equal(npy_parse_header(&h, "t.npy", v2, n + 2), 0);
	assert_int_equal(h.data_offset, n + 2);

	static const struct {
		const char *dict;
		const char *why;
	} bad[] = {
		{ "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", "not supported" },
		{ "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", "not supported" },
		{ "{'descr': '<U4', 'fortran_order': False, 'shape': (2,), }", "not supported" },
		{ "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "structured" },
		{ "{'descr': '<f4', 'shape': (2,), }", "corrupt .npy header" },
		{ "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", "corrupt .npy header" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,x), }", "corrupt .npy header" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "corrupt .npy header" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
		  "too large" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = make_npy(buf, bad[i].dict, "", 0);
		assert_int_equal(npy_parse_header(&h, "bad.npy", buf, n), FERRY_ECORRUPT);
		assert_non_null(strstr(err_message(), "bad.npy"));
		if (!strstr(err_message(), bad[i].why))
			fail_msg("%s: got \"%s\"", bad[i].dict, err_message());
	}
	assert_int_equal(npy_parse_header(&h, "m.npy", (const unsigned char *)"PK\3\4 not npy", 13), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "magic"));
	n = make_npy(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "", 0);
	assert_int_equal(npy_parse_header(&h, "cut.npy", buf, 40), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "truncated"));
	buf[6] = 9;
	assert_int_equal(npy_parse_header(&h, "v9.npy", buf, n), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "version"));
}

static void test_npy_decode(void **state)
{
	(void)state;
	npy_info h = { 0 };
	double out[8];
	/* float16: 1.0, -2.0, 65504, smallest subnormal, inf, NaN (little-endian) */
	static const unsigned char f16[] = { 0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00, 0x00, 0x7c, 0x00, 0x7e };
	h.kind = 'f', h.itemsize = 2;
	npy_decode(out, &h, f16, 6);
	assert_true(out[0] == 1.0 && out[1] == -2.0 && out[2] == 65504.0);
	assert_true(out[3] == ldexp(1.0, -24));
	assert_true(isinf(out[4]) && isnan(out[5]));
	/* big-endian float16 and float32 */
	static const unsigned char f16be[] = { 0x3c, 0x00 };
	h.big_endian = 1;
	npy_decode(out, &h, f16be, 1);
	assert_true(out[0] == 1.0);
	static const unsigned char f32be[] = { 0x40, 0x49, 0x0f, 0xdb };
	h.itemsize = 4;
	npy_decode(out, &h, f32be, 1);
	assert_true(fabs(out[0] - 3.14159265) < 1e-6);
	static const unsigned char f64be[] = { 0xbf, 0xf0, 0, 0, 0, 0, 0, 0 };
	h.itemsize = 8;
	npy_decode(out, &h, f64be, 1);
	assert_true(out[0] == -1.0);
	/* integers, signed and unsigned, both byte orders */
	static const unsigned char i16le[] = { 0xfe, 0xff, 0x10, 0x00 };
	h = (npy_info){ .kind = 'i', .itemsize = 2 };
	npy_decode(out, &h, i16le, 2);
	assert_true(out[0] == -2.0 && out[1] == 16.0);
	static const unsigned char u32be[] = { 0xff, 0xff, 0xff, 0xff };
	h = (npy_info){ .kind = 'u', .itemsize = 4, .big_endian = 1 };
	npy_decode(out, &h, u32be, 1);
	assert_true(out[0] == 4294967295.0);
	static const unsigned char i64le[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	h = (npy_info){ .kind = 'i', .itemsize = 8 };
	npy_decode(out, &h, i64le, 1);
	assert_true(out[0] == -1.0);
	static const unsigned char i8[] = { 0x80, 0x7f };
	h = (npy_info){ .kind = 'i', .itemsize = 1 };
	npy_decode(out, &h, i8, 2);
	assert_true(out[0] == -128.0 && out[1] == 127.0);
	static const unsigned char b1[] = { 0, 1 };
	h = (npy_info){ .kind = 'b', .itemsize = 1 };
	npy_decode(out, &h, b1, 2);
	assert_true(out[0] == 0.0 && out[1] == 1.0);
}

/* --- dump comparison --- */

static dump_result compare_ok(const char *dir, const char *a, const char *b, int threads, size_t chunk)
{
	char *pa = util_path_join(dir, a), *pb = util_path_join(dir, b);
	dump_opts o = { threads, chunk, NULL, NULL, { 0, 0, 0 } };
	dump_result r;
	int rc = dump_compare(&r, pa, pb, &o);
	if (rc)
		fail_msg("dump_compare: %s", err_message());
	free(pa);
	free(pb);
	return r;
}

static void test_cosine_cases(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	float a[4] = { 1, 2, 3, 4 }, same[4] = { 1, 2, 3, 4 }, opp[4] = { -1, -2, -3, -4 };
	float x[2] = { 1, 0 }, y[2] = { 0, 1 }, z[2] = { 0, 0 };
	write_f32(dir, "a.npy", a, 4, "(4,)");
	write_f32(dir, "same.npy", same, 4, "(4,)");
	write_f32(dir, "opp.npy", opp, 4, "(4,)");
	write_f32(dir, "x.npy", x, 2, "(2,)");
	write_f32(dir, "y.npy", y, 2, "(2,)");
	write_f32(dir, "z.npy", z, 2, "(2,)");
	write_f32(dir, "z2.npy", z, 2, "(2,)");
	dump_result r = compare_ok(dir, "a.npy", "same.npy", 2, 0);
	assert_int_equal(r.n, 1);
	assert_true(fabs(r.pairs[0].m.cosine - 1.0) < 1e-12);
	assert_true(r.pairs[0].m.max_abs == 0 && r.pairs[0].m.ratio_1e3 == 1.0);
	assert_true(r.pass);
	assert_int_equal(strlen(r.sha_a), 64);
	dump_result_done(&r);
	r = compare_ok(dir, "a.npy", "opp.npy", 1, 0);
	assert_true(fabs(r.pairs[0].m.cosine + 1.0) < 1e-12);
	assert_true(fabs(r.pairs[0].m.max_abs - 8.0) < 1e-12);
	assert_true(fabs(r.pairs[0].m.max_rel - 2.0) < 1e-9);
	assert_false(r.pass);
	assert_int_equal(r.first_fail, 0);
	dump_result_done(&r);
	r = compare_ok(dir, "x.npy", "y.npy", 1, 0);
	assert_true(fabs(r.pairs[0].m.cosine) < 1e-12);
	assert_false(r.pass);
	dump_result_done(&r);
	/* two all-zero tensors are identical; zero against non-zero has no cosine */
	r = compare_ok(dir, "z.npy", "z2.npy", 1, 0);
	assert_true(r.pairs[0].m.cosine == 1.0 && r.pass);
	dump_result_done(&r);
	r = compare_ok(dir, "z.npy", "x.npy", 1, 0);
	assert_true(isnan(r.pairs[0].m.cosine));
	assert_false(r.pass);
	dump_result_done(&r);
	tu_rmdir(dir);
	free(dir);
}

static void test_chunks_threads_dtypes(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	enum { N = 1000 };
	float a[N];
	double b[N];
	for (int i = 0; i < N; i++) {
		a[i] = (float)sin(i * 0.37) * 3.0f;
		b[i] = a[i] * (1.0 + (i % 17 == 0 ? 2e-3 : 1e-5));
	}
	write_f32(dir, "a.npy", a, N, "(10, 100)");
	/* the same values as big-endian float64 */
	unsigned char be[N * 8];
	for (int i = 0; i < N; i++) {
		uint64_t u;
		memcpy(&u, &b[i], 8);
		for (int k = 0; k < 8; k++)
			be[i * 8 + k] = (unsigned char)(u >> (56 - 8 * k));
	}
	free(write_npy(dir, "b.npy", ">f8", 0, "(10, 100)", be, sizeof be));
	dump_result whole = compare_ok(dir, "a.npy", "b.npy", 1, 0);
	const size_t chunks[] = { 1, 7, 64, 999, 1000, 1001 };
	for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
		for (int t = 1; t <= 4; t += 3) {
			dump_result r = compare_ok(dir, "a.npy", "b.npy", t, chunks[c]);
			const dump_metrics *m = &r.pairs[0].m, *w = &whole.pairs[0].m;
			assert_true(fabs(m->cosine - w->cosine) < 1e-12);
			assert_true(m->max_abs == w->max_abs && m->max_rel == w->max_rel);
			assert_true(m->ratio_1e3 == w->ratio_1e3 && m->ratio_5e3 == w->ratio_5e3);
			assert_true(fabs(m->euc_dist - w->euc_dist) < 1e-12);
			assert_int_equal(m->count, N);
			dump_result_done(&r);
		}
	const dump_metrics *w = &whole.pairs[0].m;
	/* 59 of 1000 elements (every 17th) are off by 0.2 % */
	assert_true(fabs(w->ratio_1e3 - (1.0 - 59.0 / 1000.0)) < 1e-3);
	assert_true(w->ratio_5e3 == 1.0);
	assert_true(w->cosine > 0.9999);
	assert_string_equal(whole.pairs[0].dtype_b, ">f8");
	dump_result_done(&whole);

	/* float16 against float32; int32 against int64 */
	unsigned char h16[4] = { 0x00, 0x3c, 0x00, 0x40 }; /* 1.0, 2.0 */
	free(write_npy(dir, "h.npy", "<f2", 0, "(2,)", h16, 4));
	float f32[2] = { 1, 2 };
	write_f32(dir, "f.npy", f32, 2, "(2,)");
	int32_t i32[2] = { 1, 2 };
	int64_t i64[2] = { 1, 2 };
	free(write_npy(dir, "i.npy", "<i4", 0, "(2,)", i32, 8));
	free(write_npy(dir, "l.npy", "<i8", 0, "(2,)", i64, 16));
	dump_result r = compare_ok(dir, "h.npy", "f.npy", 2, 1);
	assert_true(r.pass && r.pairs[0].m.max_abs == 0);
	dump_result_done(&r);
	r = compare_ok(dir, "i.npy", "l.npy", 2, 1);
	assert_true(r.pass && r.pairs[0].m.max_abs == 0);
	dump_result_done(&r);
	/* an integer tensor against a float one is not compared, and the output says why */
	r = compare_ok(dir, "h.npy", "i.npy", 2, 1);
	assert_false(r.pass);
	assert_int_equal(r.pairs[0].mode, DUMP_UNMATCHED);
	assert_non_null(strstr(r.pairs[0].note, "integer tensor against a float tensor"));
	dump_result_done(&r);

	/* bfloat16 stored as <u2 bit patterns (numpy has no bf16): compared as integers it
	 * gave cosine -0.36; named bf16 it is the same data as the float32 */
	float bf_vals[4] = { 1.5f, -2.0f, 0.15625f, 300.0f };
	uint16_t bits[4];
	for (int k = 0; k < 4; k++) {
		uint32_t u;
		memcpy(&u, &bf_vals[k], 4);
		bits[k] = (uint16_t)(u >> 16); /* every value above is exact in bfloat16 */
	}
	write_f32(dir, "ref.npy", bf_vals, 4, "(4,)");
	free(write_npy(dir, "bf.npy", "<u2", 0, "(4,)", bits, 8));
	free(write_npy(dir, "bfv.npy", "|V2", 0, "(4,)", bits, 8));
	r = compare_ok(dir, "ref.npy", "bf.npy", 1, 0);
	assert_false(r.pass); /* unnamed: refused, not compared as integers */
	assert_int_equal(r.pairs[0].mode, DUMP_UNMATCHED);
	dump_result_done(&r);
	char *pr = util_path_join(dir, "ref.npy"), *pbf = util_path_join(dir, "bf.npy"), *pv = util_path_join(dir, "bfv.npy");
	dump_opts ob = { 1, 0, NULL, "bf16", { 0, 0, 0 } };
	assert_int_equal(dump_compare(&r, pr, pbf, &ob), 0);
	assert_true(r.pass);
	assert_true(r.pairs[0].m.max_abs == 0 && r.pairs[0].m.cosine > 0.999999);
	assert_string_equal(r.pairs[0].dtype_b, "bf16");
	dump_result_done(&r);
	assert_int_equal(dump_compare(&r, pr, pv, &ob), 0);
	assert_true(r.pass);
	dump_result_done(&r);
	dump_opts none = { 1, 0, NULL, NULL, { 0, 0, 0 } };
	assert_int_equal(dump_compare(&r, pr, pv, &none), 0);
	assert_false(r.pass);
	assert_non_null(strstr(r.pairs[0].note, "--dtype-b bf16"));
	dump_result_done(&r);
	free(pr);
	free(pbf);
	free(pv);
	tu_rmdir(dir);
	free(dir);
}

static void test_nan_and_order(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	float a[4] = { 1, NAN, INFINITY, 4 }, b[4] = { 1, NAN, INFINITY, 4 }, c[4] = { 1, 2, -INFINITY, 4 };
	write_f32(dir, "a.npy", a, 4, "(4,)");
	write_f32(dir, "b.npy", b, 4, "(4,)");
	write_f32(dir, "c.npy", c, 4, "(4,)");
	/* the same NaN on both sides fails: the baseline's NaN cannot vouch for B */
	dump_result r = compare_ok(dir, "a.npy", "b.npy", 2, 1);
	assert_false(r.pass);
	assert_int_equal(r.pairs[0].m.nonfinite_a, 2);
	assert_int_equal(r.pairs[0].m.nan_a, 1);
	assert_int_equal(r.pairs[0].m.nonfinite_mismatch, 0);
	assert_non_null(strstr(r.pairs[0].note, "NaN on both sides"));
	dump_result_done(&r);
	/* the same infinity on both sides (a mask) leaves the finite elements to judge: a warning */
	float m1[4] = { 1, -INFINITY, -INFINITY, 4 }, m2[4] = { 1, -INFINITY, -INFINITY, 4 };
	write_f32(dir, "m1.npy", m1, 4, "(4,)");
	write_f32(dir, "m2.npy", m2, 4, "(4,)");
	r = compare_ok(dir, "m1.npy", "m2.npy", 2, 1);
	assert_true(r.pass);
	assert_true(r.pairs[0].pass && r.pairs[0].warn);
	assert_int_equal(r.nwarn, 1);
	dump_result_done(&r);
	r = compare_ok(dir, "a.npy", "c.npy", 2, 1);
	assert_false(r.pass);
	assert_int_equal(r.pairs[0].m.nonfinite_mismatch, 2);
	assert_non_null(strstr(r.pairs[0].note, "NaN"));
	dump_result_done(&r);

	/* Fortran against Fortran of the same shape: compared in file order */
	float f[6] = { 1, 2, 3, 4, 5, 6 };
	free(write_npy(dir, "f1.npy", "<f4", 1, "(2, 3)", f, sizeof f));
	free(write_npy(dir, "f2.npy", "<f4", 1, "(2, 3)", f, sizeof f));
	free(write_npy(dir, "c1.npy", "<f4", 0, "(2, 3)", f, sizeof f));
	free(write_npy(dir, "v1.npy", "<f4", 1, "(6, 1)", f, sizeof f));
	free(write_npy(dir, "v2.npy", "<f4", 0, "(6, 1)", f, sizeof f));
	r = compare_ok(dir, "f1.npy", "f2.npy", 1, 0);
	assert_true(r.pass);
	dump_result_done(&r);
	/* a vector's element order does not depend on the memory order */
	r = compare_ok(dir, "v1.npy", "v2.npy", 1, 0);
	assert_true(r.pass);
	dump_result_done(&r);
	char *p1 = util_path_join(dir, "f1.npy"), *p2 = util_path_join(dir, "c1.npy");
	dump_opts o = { 1, 0, NULL, NULL, { 0, 0, 0 } };
	assert_int_equal(dump_compare(&r, p1, p2, &o), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "c1.npy"));
	assert_non_null(strstr(err_message(), "Fortran"));
	assert_null(strchr(err_message(), '\n'));
	free(p1);
	free(p2);
	/* different shapes: not compared, a failing pair */
	write_f32(dir, "s.npy", f, 6, "(3, 2)");
	r = compare_ok(dir, "c1.npy", "s.npy", 1, 0);
	assert_int_equal(r.pairs[0].mode, DUMP_UNMATCHED);
	assert_false(r.pass);
	dump_result_done(&r);
	tu_rmdir(dir);
	free(dir);
}

/* Folders of .npy files: pairs in natural name order whatever the files' times, and the
 * worst failing pairs really listed worst first. */
static void test_npy_folder_order_and_worst(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	/* cosines against A's [1, 1]: l.2 ≈ 0.95 (fails the default threshold), l.10 = 0 and
	 * l.3 = −1 (fail far worse); l.1 identical */
	float one[2] = { 1, 1 }, near[2] = { 1, 0.5f }, orth[2] = { 1, -1 }, anti[2] = { -1, -1 };
	const char *names[4] = { "l.10.output.0.npy", "l.3.output.0.npy", "l.2.output.0.npy", "l.1.output.0.npy" };
	const float *bv[4] = { orth, anti, near, one };
	for (int i = 0; i < 4; i++) {
		char pa[64], pb[64];
		snprintf(pa, sizeof pa, "a/%s", names[i]);
		snprintf(pb, sizeof pb, "b/%s", names[i]);
		write_f32(dir, pa, one, 2, "(2,)");
		write_f32(dir, pb, bv[i], 2, "(2,)");
		/* written in reverse order, and the times say so: the order must not follow them */
		char *full = util_path_join(dir, pa);
		struct timespec ts[2] = { { 1000 + i, 0 }, { 1000 + i, 0 } };
		assert_int_equal(utimensat(AT_FDCWD, full, ts, 0), 0);
		free(full);
	}
	dump_result r = compare_ok(dir, "a", "b", 1, 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.pairs[0].name, "l.1.output.0");
	assert_string_equal(r.pairs[1].name, "l.2.output.0");
	assert_string_equal(r.pairs[3].name, "l.10.output.0");
	assert_int_equal(r.first_fail, 1); /* l.2, the first in execution order */
	sbuf t;
	sbuf_init(&t);
	dump_render_text(&t, &r, "a", "b", NULL);
	/* worst first among the failing: cosine −1, then 0, then 0.95 */
	const char *list = strstr(t.buf, "worst first");
	assert_non_null(list);
	assert_true(strstr(list, "l.3.output.0") < strstr(list, "l.10.output.0"));
	assert_true(strstr(list, "l.10.output.0") < strstr(list, "l.2.output.0"));
	sbuf_done(&t);
	dump_result_done(&r);
	tu_rmdir(dir);
	free(dir);
}

static void test_corrupt_npy(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	float a[8] = { 0 };
	write_f32(dir, "a.npy", a, 8, "(8,)");
	write_f32(dir, "short.npy", a, 7, "(8,)");
	char *good = util_path_join(dir, "a.npy"), *bad = util_path_join(dir, "short.npy");
	dump_result r;
	dump_opts o = { 2, 3, NULL, NULL, { 0, 0, 0 } };
	assert_int_equal(dump_compare(&r, good, bad, &o), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "short.npy"));
	assert_non_null(strstr(err_message(), "truncated"));
	assert_null(strchr(err_message(), '\n'));
	write_f32(dir, "long.npy", a, 8, "(7,)");
	char *lng = util_path_join(dir, "long.npy");
	assert_int_equal(dump_compare(&r, lng, good, &o), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "long.npy"));
	tu_write(dir, "head.npy", "\x93NUMPY\x01");
	char *head = util_path_join(dir, "head.npy");
	assert_int_equal(dump_compare(&r, good, head, &o), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "head.npy"));
	tu_write(dir, "garbage.npy", "\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'\n");
	char *garbage = util_path_join(dir, "garbage.npy");
	assert_int_equal(dump_compare(&r, good, garbage, &o), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "garbage.npy"));
	free(good);
	free(bad);
	free(lng);
	free(head);
	free(garbage);
	tu_rmdir(dir);
	free(dir);
}

/* A dump.json of msprobe's task (tensor or statistics) with two entries; stats of the
 * second output differ by `drift`. */
static void write_dump_json_task(const char *dir, const char *rel, double drift, const char *ext, const char *task)
{
	char *json = xasprintf(
	    "{\"task\": \"%s\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {\n"
	    " \"Functional.linear.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\","
	    " \"shape\": [2], \"Max\": 2.0, \"Min\": 1.0, \"Mean\": 1.5, \"Norm\": 2.236, \"requires_grad\": false,"
	    " \"data_name\": \"Functional.linear.0.forward.input.0.%s\"}, {\"type\": \"int\", \"value\": 3}],"
	    " \"input_kwargs\": {}, \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2],"
	    " \"Max\": 2.0, \"Min\": 1.0, \"Mean\": 1.5, \"Norm\": 2.236, \"data_name\": \"Functional.linear.0.forward.output.0.%s\"}]},\n"
	    " \"Functional.relu.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\","
	    " \"shape\": [2], \"Max\": 2.0, \"Min\": 1.0, \"Mean\": 1.5, \"Norm\": 2.236,"
	    " \"data_name\": \"Functional.relu.0.forward.input.0.%s\"}], \"output\": [{\"type\": \"torch.Tensor\","
	    " \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": %g, \"Min\": NaN, \"Mean\": 1.5, \"Norm\": null,"
	    " \"data_name\": \"Functional.relu.0.forward.output.0.%s\"}]}}}\n",
	    task, ext, ext, ext, 2.0 * (1 + drift), ext);
	tu_write(dir, rel, json);
	free(json);
}

static void write_dump_json(const char *dir, const char *rel, double drift, const char *ext)
{
	write_dump_json_task(dir, rel, drift, ext, "tensor");
}

/* A tensor dump whose files are gone is no statistics dump: its pairs are not compared
 * and fail (their statistics could only warn, so a deleted diverging tensor would pass). */
static void test_dump_json_tensor_files_missing(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	write_dump_json(dir, "gpu/dump.json", 0, "pt");
	write_dump_json(dir, "npu/dump.json", 1.5, "pt");
	dump_result r = compare_ok(dir, "gpu", "npu", 1, 0);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.nstats, 0);
	assert_false(r.pass);
	assert_int_equal(r.nfailed, 4);
	assert_non_null(strstr(r.pairs[0].note, "missing"));
	dump_result_done(&r);
	tu_rmdir(dir);
	free(dir);
}

static void test_dump_json_stats(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	write_dump_json_task(dir, "gpu/step0/rank/dump.json", 0, "pt", "statistics");
	write_dump_json_task(dir, "npu/step0/rank/dump.json", 0.1, "pt", "statistics");
	dump_result r = compare_ok(dir, "gpu", "npu", 2, 0);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.nstats, 4);
	assert_true(r.pass);
	assert_non_null(strstr(r.stats_reason, ".pt"));
	assert_string_equal(r.pairs[0].name, "Functional.linear.0.forward.input.0");
	assert_string_equal(r.pairs[3].layer, "Functional.relu.0.forward");
	assert_true(fabs(r.pairs[3].stat_rel[0] - 0.2 / 2.2) < 1e-9); /* against the greater value */
	assert_true(isnan(r.pairs[3].stat_rel[1]));
	sbuf t;
	sbuf_init(&t);
	dump_render_text(&t, &r, "gpu", "npu", NULL);
	assert_non_null(strstr(t.buf, "tensors were not read"));
	assert_non_null(strstr(t.buf, "verdict: PASS"));
	sbuf_done(&t);
	dump_result_done(&r);
	/* a drift beyond msprobe's 50 % magnitude (Max 2 against 5: 60 % of the larger): its
	 * Warning, a pair to double-check, not a failure */
	write_dump_json_task(dir, "bad/dump.json", 1.5, "pt", "statistics");
	r = compare_ok(dir, "gpu/step0/rank/dump.json", "bad", 1, 0);
	assert_true(r.pass);
	assert_int_equal(r.nfailed, 0);
	assert_int_equal(r.nwarn, 1);
	assert_true(r.pairs[3].warn);
	assert_non_null(strstr(r.pairs[3].note, "double-check"));
	cJSON *j = dump_result_json(&r, NULL, NULL);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pairs"), 3), "result")->valuestring,
	                    "warning");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "pairs")), 4);
	cJSON_Delete(j);
	/* a mean near zero on both sides (a BatchNorm output) with opposite signs: a warning to
	 * double-check, never a failure (it was a 300 % "error" against A alone) */
	tu_write(dir, "bn_a/dump.json", "{\"data\": {\"Functional.batch_norm.0.forward\": {\"output\": [{\"type\": "
	                                "\"torch.Tensor\", \"shape\": [4], \"Max\": 1.7, \"Min\": -1.7, \"Mean\": 1e-8, "
	                                "\"Norm\": 2.0}]}}}");
	tu_write(dir, "bn_b/dump.json", "{\"data\": {\"Functional.batch_norm.0.forward\": {\"output\": [{\"type\": "
	                                "\"torch.Tensor\", \"shape\": [4], \"Max\": 1.7, \"Min\": -1.7, \"Mean\": -2e-8, "
	                                "\"Norm\": 2.0}]}}}");
	dump_result bn = compare_ok(dir, "bn_a", "bn_b", 1, 0);
	assert_true(bn.pass);
	assert_int_equal(bn.nwarn, 1);
	dump_result_done(&bn);
	sbuf_init(&t);
	dump_render_csv(&t, &r);
	size_t lines = 0;
	for (const char *c = t.buf; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 5);
	sbuf_done(&t);
	dump_result_done(&r);
	/* a statistic recorded on one side only (null: not computable) is not a difference */
	tu_write(dir, "n1/dump.json", "{\"data\": {\"Torch.add.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\","
	                              " \"shape\": [], \"Max\": 1.0, \"Norm\": null}]}}}");
	tu_write(dir, "n2/dump.json", "{\"data\": {\"Torch.add.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\","
	                              " \"shape\": [], \"Max\": 1.0, \"Norm\": 5.0}]}}}");
	r = compare_ok(dir, "n1", "n2", 1, 0);
	assert_int_equal(r.n, 1);
	assert_true(r.pass);
	assert_true(isnan(r.pairs[0].stat_rel[3]));
	dump_result_done(&r);
	/* two dump.json files under one folder: ambiguous */
	write_dump_json(dir, "multi/step0/rank0/dump.json", 0, "pt");
	write_dump_json(dir, "multi/step0/rank1/dump.json", 0, "pt");
	char *pa = util_path_join(dir, "gpu"), *pm = util_path_join(dir, "multi");
	dump_opts o = { 1, 0, NULL, NULL, { 0, 0, 0 } };
	assert_int_equal(dump_compare(&r, pa, pm, &o), FERRY_EUSAGE);
	assert_non_null(strstr(err_message(), "2 dump.json"));
	tu_write(dir, "broken/dump.json", "{\"data\": {\"x\": [");
	char *pb = util_path_join(dir, "broken");
	assert_int_equal(dump_compare(&r, pa, pb, &o), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "dump.json"));
	free(pa);
	free(pm);
	free(pb);
	tu_rmdir(dir);
	free(dir);
}

/* Two statistics dumps of one output whose Max, Min, Mean and Norm are given (A the
 * GPU's, B the NPU's), compared. */
static dump_result compare_stats(const char *dir, const double a[4], const double b[4])
{
	for (int side = 0; side < 2; side++) {
		const double *v = side ? b : a;
		char *j = xasprintf("{\"task\": \"statistics\", \"data\": {\"Functional.gelu.0.forward\": {\"output\": "
		                    "[{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4], \"Max\": %.17g, "
		                    "\"Min\": %.17g, \"Mean\": %.17g, \"Norm\": %.17g}]}}}",
		                    v[0], v[1], v[2], v[3]);
		tu_write(dir, side ? "sb/dump.json" : "sa/dump.json", j);
		free(j);
	}
	return compare_ok(dir, "sa", "sb", 1, 0);
}

/* msprobe's statistics rule, as its compare command applies it (CalcStatsDiff.
 * calc_summary_diff in msprobe/core/compare/acc_compare.py): a statistic warns when
 * |NPU - bench| / (|max(NPU, bench)| + 1e-10) > 0.5, the greater of the two values by
 * sign, not by magnitude, and not the bench alone. */
static void test_dump_stats_msprobe_rule(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	/* Min -1.3 on the GPU, -0.8 on the NPU: 0.5 / |-0.8| = 62.5 %, msprobe's Warning
	 * (against the larger magnitude, 1.3, it was 38 % and passed unremarked) */
	dump_result r = compare_stats(dir, (double[]){ 2, -1.3, 0.1, 3 }, (double[]){ 2, -0.8, 0.1, 3 });
	assert_true(r.pass);
	assert_true(r.pairs[0].warn);
	assert_int_equal(r.nwarn, 1);
	assert_true(fabs(r.pairs[0].stat_rel[1] - 0.5 / (0.8 + 1e-10)) < 1e-12);
	dump_result_done(&r);
	/* msprobe's epsilon is 1e-10: Mean 0 against 1e-10 is 1e-10 / 2e-10, exactly 50 %,
	 * which is not over it */
	r = compare_stats(dir, (double[]){ 2, -1, 0, 3 }, (double[]){ 2, -1, 1e-10, 3 });
	assert_true(r.pass);
	assert_false(r.pairs[0].warn);
	assert_true(fabs(r.pairs[0].stat_rel[2] - 0.5) < 1e-12);
	dump_result_done(&r);
	/* not the bench alone: Max 1 on the GPU and 1.8 on the NPU is 80 % of the bench but
	 * 0.8 / 1.8 = 44 % of the greater value, no Warning */
	r = compare_stats(dir, (double[]){ 1, -1, 0.1, 3 }, (double[]){ 1.8, -1, 0.1, 3 });
	assert_true(r.pass);
	assert_false(r.pairs[0].warn);
	dump_result_done(&r);
	/* over 50 %, not at it: Norm 3 against 6 is half of 6 (less the epsilon), a hair
	 * more is over */
	r = compare_stats(dir, (double[]){ 2, -1, 0.1, 3 }, (double[]){ 2, -1, 0.1, 6 });
	assert_false(r.pairs[0].warn);
	dump_result_done(&r);
	r = compare_stats(dir, (double[]){ 2, -1, 0.1, 3 }, (double[]){ 2, -1, 0.1, 6.0000001 });
	assert_true(r.pairs[0].warn);
	dump_result_done(&r);
	tu_rmdir(dir);
	free(dir);
}

/* dump.json's "dtype" against what a tensor's file holds: the file's own dtype is what
 * its bytes are and is compared; a record that says otherwise is reported on the pair, a
 * warning in every rendering, never passed over. */
static void test_dump_json_dtype_contradicts_file(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	static const char rec[] = "{\"task\": \"tensor\", \"data\": {\"Functional.gelu.0.forward\": {\"input_args\": [], "
	                          "\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"%s\", \"shape\": [2], "
	                          "\"data_name\": \"Functional.gelu.0.forward.output.0.npy\"}]}}}\n";
	char *ja = xasprintf(rec, "torch.float32"), *jb = xasprintf(rec, "torch.bfloat16");
	tu_write(dir, "a/dump.json", ja);
	tu_write(dir, "b/dump.json", jb);
	free(ja);
	free(jb);
	float g[2] = { 1.5f, -2.0f };
	uint16_t h[2] = { 0x3e00, 0xc000 }; /* 1.5 and -2.0 in float16, not bfloat16 */
	write_f32(dir, "a/dump_tensor_data/Functional.gelu.0.forward.output.0.npy", g, 2, "(2,)");
	free(write_npy(dir, "b/dump_tensor_data/Functional.gelu.0.forward.output.0.npy", "<f2", 0, "(2,)", h, 4));
	dump_result r = compare_ok(dir, "a", "b", 1, 0);
	assert_int_equal(r.nreal, 1);
	const dump_pair *p = &r.pairs[0];
	assert_string_equal(p->dtype_b, "<f2"); /* decoded as the float16 it is */
	assert_true(p->m.max_abs == 0);
	assert_string_equal(p->dtype_json_a, "");
	assert_string_equal(p->dtype_json_b, "torch.bfloat16");
	assert_int_equal(r.ndtype, 1);
	assert_true(r.pass);
	assert_true(p->warn);
	assert_int_equal(r.nwarn, 1);
	assert_non_null(strstr(p->note, "dtype"));
	sbuf t;
	sbuf_init(&t);
	dump_render_text(&t, &r, "a", "b", NULL);
	assert_non_null(strstr(t.buf, "Functional.gelu.0.forward.output.0 — B: dump.json says torch.bfloat16, the file holds float16"));
	assert_null(strstr(t.buf, "±inf"));
	sbuf_done(&t);
	sbuf_init(&t);
	dump_render_csv(&t, &r);
	assert_non_null(strstr(t.buf, ",warning,"));
	assert_non_null(strstr(t.buf, ",,torch.bfloat16\n"));
	sbuf_done(&t);
	cJSON *j = dump_result_json(&r, NULL, NULL);
	const cJSON *jp = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pairs"), 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(jp, "dtype_json_a")));
	assert_string_equal(cJSON_GetObjectItem(jp, "dtype_json_b")->valuestring, "torch.bfloat16");
	assert_string_equal(cJSON_GetObjectItem(jp, "result")->valuestring, "warning");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "dtype_conflicts")->valueint, 1);
	cJSON_Delete(j);
	dump_result_done(&r);
	/* the names torch, numpy and MindSpore write for one dtype agree with the file */
	static const char *const same[] = { "float16", "Float16", "torch.half", "mindspore.float16" };
	for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
		jb = xasprintf(rec, same[i]);
		tu_write(dir, "b/dump.json", jb);
		free(jb);
		r = compare_ok(dir, "a", "b", 1, 0);
		assert_string_equal(r.pairs[0].dtype_json_b, "");
		assert_int_equal(r.ndtype, 0);
		assert_false(r.pairs[0].warn);
		dump_result_done(&r);
	}
	tu_rmdir(dir);
	free(dir);
}

static void test_dump_json_tensors(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	write_dump_json(dir, "gpu/dump.json", 0, "npy");
	write_dump_json(dir, "npu/dump.json", 0, "npy");
	static const char *const names[] = { "Functional.linear.0.forward.input.0", "Functional.linear.0.forward.output.0",
		                                 "Functional.relu.0.forward.input.0", "Functional.relu.0.forward.output.0" };
	float v[2] = { 1, 2 }, w[2] = { 2, 1 };
	for (int i = 0; i < 4; i++) {
		char *ra = xasprintf("gpu/dump_tensor_data/%s.npy", names[i]), *rb = xasprintf("npu/dump_tensor_data/%s.npy", names[i]);
		write_f32(dir, ra, v, 2, "(2,)");
		write_f32(dir, rb, i >= 1 ? w : v, 2, "(2,)"); /* diverges from the linear output on */
		free(ra);
		free(rb);
	}
	/* an extra tensor only B has */
	dump_result r = compare_ok(dir, "gpu", "npu", 2, 0);
	assert_int_equal(r.nreal, 4);
	assert_int_equal(r.nfailed, 3);
	assert_int_equal(r.first_fail, 1);
	assert_string_equal(r.pairs[r.first_fail].name, "Functional.linear.0.forward.output.0");
	assert_string_equal(r.pairs[r.first_fail].layer, "Functional.linear.0.forward");
	sbuf t;
	sbuf_init(&t);
	dump_render_text(&t, &r, "gpu", "npu", NULL);
	assert_non_null(strstr(t.buf, "first diverging layer: Functional.linear.0.forward"));
	sbuf_done(&t);
	dump_result_done(&r);

	/* msprobe's dump.json says "torch.bfloat16" for a tensor stored as <u2 bits: decoded
	 * as bfloat16 without any option */
	char *bj = xasprintf("{\"task\": \"tensor\", \"level\": \"L1\", \"data\": {\"Functional.gelu.0.forward\": "
	                     "{\"input_args\": [], \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"%s\", "
	                     "\"shape\": [2], \"data_name\": \"Functional.gelu.0.forward.output.0.npy\"}]}}}\n",
	                     "torch.bfloat16");
	tu_write(dir, "bfa/dump.json", bj);
	tu_write(dir, "bfb/dump.json", bj);
	free(bj);
	float g[2] = { 1.5f, -2.0f };
	uint16_t gb[2] = { 0x3fc0, 0xc000 }; /* 1.5 and -2.0 in bfloat16 */
	write_f32(dir, "bfa/dump_tensor_data/Functional.gelu.0.forward.output.0.npy", g, 2, "(2,)");
	free(write_npy(dir, "bfb/dump_tensor_data/Functional.gelu.0.forward.output.0.npy", "<u2", 0, "(2,)", gb, 4));
	r = compare_ok(dir, "bfa", "bfb", 1, 0);
	assert_int_equal(r.nreal, 1);
	assert_true(r.pass);
	assert_string_equal(r.pairs[0].dtype_b, "bf16");
	/* B's <u2 bits are what dump.json's dtype is read for; A's record says bfloat16 too,
	 * of a file that holds float32: the file's own dtype is compared, and it is said */
	assert_string_equal(r.pairs[0].dtype_json_b, "");
	assert_string_equal(r.pairs[0].dtype_json_a, "torch.bfloat16");
	assert_int_equal(r.ndtype, 1);
	dump_result_done(&r);

	/* plain folders of .npy files, matched by file name */
	write_f32(dir, "fa/x.input.0.npy", v, 2, "(2,)");
	write_f32(dir, "fa/only_a.npy", v, 2, "(2,)");
	write_f32(dir, "fb/x.input.0.npy", v, 2, "(2,)");
	write_f32(dir, "fb/only_b.npy", v, 2, "(2,)");
	r = compare_ok(dir, "fa", "fb", 2, 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.only_a, 1);
	assert_int_equal(r.only_b, 1);
	assert_string_equal(r.pairs[0].layer, "x");
	assert_string_equal(r.form_a, "tensor folder");
	/* the pair agrees, but B holds half of A's tensors: the rest was never compared */
	assert_false(r.pass);
	assert_true(r.incomplete);
	assert_true(fabs(r.coverage - 0.5) < 1e-12);
	assert_int_equal(r.first_fail, -1);
	dump_result_done(&r);
	/* nine of ten is enough (DUMP_MIN_COVERAGE) when the one missing comes before a
	 * compared pair; the last one missing was never checked at all */
	for (int i = 0; i < 10; i++) {
		char *ra = xasprintf("ga/t%d.npy", i), *rb = xasprintf("gb/t%d.npy", i), *rc = xasprintf("gc/t%d.npy", i);
		write_f32(dir, ra, v, 2, "(2,)");
		if (i != 4)
			write_f32(dir, rb, v, 2, "(2,)");
		if (i != 9)
			write_f32(dir, rc, v, 2, "(2,)");
		free(ra);
		free(rb);
		free(rc);
	}
	r = compare_ok(dir, "ga", "gb", 2, 0);
	assert_int_equal(r.n, 9);
	assert_int_equal(r.unchecked, 0);
	assert_false(r.incomplete);
	assert_true(r.pass);
	dump_result_done(&r);
	r = compare_ok(dir, "ga", "gc", 2, 0);
	assert_int_equal(r.n, 9);
	assert_true(fabs(r.coverage - 0.9) < 1e-12);
	assert_int_equal(r.unchecked, 1);
	assert_string_equal(r.first_unchecked, "t9");
	assert_true(r.incomplete);
	assert_false(r.pass);
	sbuf_init(&t);
	dump_render_text(&t, &r, "ga", "gc", NULL);
	assert_non_null(strstr(t.buf, "first t9"));
	assert_non_null(strstr(t.buf, "verdict: FAIL"));
	sbuf_done(&t);
	dump_result_done(&r);
	/* a folder against a single file is refused */
	char *pa = util_path_join(dir, "fa"), *pb = util_path_join(dir, "fb/only_b.npy");
	dump_opts o = { 1, 0, NULL, NULL, { 0, 0, 0 } };
	assert_int_equal(dump_compare(&r, pa, pb, &o), FERRY_EUSAGE);
	free(pa);
	free(pb);
	tu_rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss_shapes),         cmocka_unit_test(test_loss_ordinals_nan_duplicates),
		cmocka_unit_test(test_loss_refused),        cmocka_unit_test(test_loss_compare),
		cmocka_unit_test(test_loss_coverage_and_end),
		cmocka_unit_test(test_loss_blowup_and_truncation), cmocka_unit_test(test_loss_bars_and_eval),
		cmocka_unit_test(test_loss_csv), cmocka_unit_test(test_loss_table), cmocka_unit_test(test_loss_chinese_labels),            cmocka_unit_test(test_npy_folder_order_and_worst),
		cmocka_unit_test(test_resolve),             cmocka_unit_test(test_npy_header),
		cmocka_unit_test(test_npy_decode),          cmocka_unit_test(test_cosine_cases),
		cmocka_unit_test(test_chunks_threads_dtypes), cmocka_unit_test(test_nan_and_order),
		cmocka_unit_test(test_corrupt_npy),         cmocka_unit_test(test_dump_json_stats),
		cmocka_unit_test(test_dump_json_tensor_files_missing),
		cmocka_unit_test(test_dump_stats_msprobe_rule),
		cmocka_unit_test(test_dump_json_dtype_contradicts_file),
		cmocka_unit_test(test_dump_json_tensors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
