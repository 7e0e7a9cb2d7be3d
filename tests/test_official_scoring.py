"""Official scoring, checked against an independent transcription of the authors' formulas on thousands of random cases.

DeltaBench (OpenStellarTeam/DeltaBench `evaluation.py`: `parse_output`, `calculate_accuracies_v2`) and ProcessBench
(QwenLM/ProcessBench `code/run_eval.py`). The transcriptions below are written from the published formulas, in a
different style from the library (explicit loops, numpy arithmetic as the scripts use it), so that a shared mistake
is unlikely; each case compares every number.
"""
import math, random, re
import numpy as np, pandas as pd, pytest
from reasoning_integrity.lines.long_cot.metrics import detection_scores, processbench_scores, processbench_average
from reasoning_integrity.lines.long_cot.critic import (read_delta_answer, parse_delta_official, parse_pb_official,
                                                  critic_table, pb_critic_table)

N_CASES = 2500

# ---- DeltaBench, transcribed -------------------------------------------------------------------------------------
def t_delta_parse(critic):
    "judge and the list of section numbers, as parse_output reads them."
    before = critic.split("Error Section Number:")[0]
    result = before.split("Conclusion:")[-1].strip()
    if "yes" in result.lower():
        nums = []
        for part in critic.split("Error Section Number:")[1:]:
            head = part.split("Explanation:")[0].strip()
            digits = re.search(r"\d+", head)
            nums.append(int(digits.group()) if digits else -1)
        return 1, nums
    return 0, []

def t_delta_sample(critic, gold):
    "None when the script gives no metric (empty critic, or max() of an empty gold list); else the metric dict."
    if critic == "" or len(gold) == 0: return None
    judge, nums = t_delta_parse(critic)
    top = max(gold)
    nums = [x for x in nums if x <= top]
    tp = len(set(nums) & set(gold)); fp = len(set(nums) - set(gold)); fn = len(set(gold) - set(nums))
    p = tp / (tp + fp) if tp + fp > 0 else 0
    r = tp / (tp + fn) if tp + fn > 0 else 0
    f = 2 * p * r / (p + r) if p + r > 0 else 0
    return dict(judge=judge, precision=p, recall=r, f1_score=f, tp_step=tp, fp_step=fp, fn_step=fn)

def t_delta_aggregate(rows):
    "calculate_accuracies_v2 on a frame where unscored samples have NaN metrics (pandas skips them)."
    df = pd.DataFrame([r if r is not None else dict(judge=np.nan, precision=np.nan, recall=np.nan, f1_score=np.nan,
                                                    tp_step=np.nan, fp_step=np.nan, fn_step=np.nan) for r in rows])
    tp, fp, fn = df.tp_step.sum(), df.fp_step.sum(), df.fn_step.sum()
    pm = tp / (tp + fp) if tp + fp > 0 else 0
    rm = tp / (tp + fn) if tp + fn > 0 else 0
    return dict(precision_macro=df.precision.mean(), recall_macro=df.recall.mean(), f1_macro=df.f1_score.mean(),
                f1_micro=2 * pm * rm / (pm + rm) if pm + rm > 0 else 0)

def random_critic(rng, n):
    "A critic answer in (or near) the official format, with the quirks the parser must keep."
    kind = rng.random()
    if kind < 0.08: return ""
    if kind < 0.3: return rng.choice(["Conclusion: no error", "Conclusion: No", "Conclusion: correct", "no error here"])
    parts = [rng.choice(["Conclusion: yes", "Conclusion: Yes, there are errors", "I say YES", "Conclusion: yes."])]
    for _ in range(rng.randint(0, 4)):
        num = rng.choice([str(rng.randint(0, n + 3)), f"section {rng.randint(1, n)}", "none", f"[{rng.randint(1, n)}]",
                          f"{rng.randint(1, n)}, {rng.randint(1, n)}"])
        parts.append(f"Error Section Number: {num}")
        if rng.random() < 0.8: parts.append(f"Explanation: step {rng.randint(1, 99)} is wrong")
    return "\n".join(parts)

def test_deltabench_official_matches_transcription():
    rng = random.Random(0)
    for case in range(N_CASES):
        n = rng.randint(1, 12)
        batch = []
        for _ in range(rng.randint(1, 6)):
            gold = sorted(rng.sample(range(1, n + 1), rng.randint(0, min(n, 4))))
            batch.append((random_critic(rng, n), gold))
        want = [t_delta_sample(c, g) for c, g in batch]
        # the library, per sample: the official reader, then the official rule
        for (c, g), w in zip(batch, want):
            off = parse_delta_official(c)
            if c == "": assert off is None; continue
            assert off == t_delta_parse(c), (c, off)
        runs = pd.DataFrame([dict(model="m", domain="d", gold=g, answered=c != "",
                                  pred_official=None if c == "" else parse_delta_official(c)[1], parser="official")
                             for c, g in batch])
        got = critic_table(runs, ("model", "domain"), pred_col="pred_official").set_index("domain").loc["all"]
        agg = t_delta_aggregate(want)
        n_scored = sum(w is not None for w in want)
        assert got.n == n_scored, case
        if n_scored == 0: assert math.isnan(got.macro_f1); continue
        assert got.precision == pytest.approx(agg["precision_macro"]) and got.recall == pytest.approx(agg["recall_macro"])
        assert got.macro_f1 == pytest.approx(agg["f1_macro"]) and got.micro_f1 == pytest.approx(agg["f1_micro"]), case

def test_deltabench_reader_uses_the_official_parse_when_the_format_is_there():
    rng = random.Random(1)
    for _ in range(N_CASES):
        c = random_critic(rng, 10)
        r = read_delta_answer(c, 10)
        if c and "Conclusion:" in c:
            assert r["parser"] == "official" and r["pred"] == sorted(set(t_delta_parse(c)[1]))

# ---- ProcessBench, transcribed -----------------------------------------------------------------------------------
def t_pb_extract(text):
    ms = re.findall(r"\\boxed\{([^}]*)\}", text)
    if not ms: return None
    try: return int(ms[-1].strip())
    except ValueError: return None

def t_pb_metrics(preds, labels):
    "acc1, acc2 (percent) and f1 as run_eval.py computes them: numpy means, f1 = 2ab/(a+b); empty means are nan."
    err = [p == l for p, l in zip(preds, labels) if l != -1]
    cor = [p == l for p, l in zip(preds, labels) if l == -1]
    with np.errstate(all="ignore"):
        a1 = np.float64(np.mean(err) * 100) if err else np.float64(np.nan)   # np.mean([]) is nan (with a warning)
        a2 = np.float64(np.mean(cor) * 100) if cor else np.float64(np.nan)
        f1 = 2 * a1 * a2 / (a1 + a2)
    return a1, a2, f1

def random_pb_answer(rng, n):
    k = rng.random()
    if k < 0.1: return "I cannot tell"
    if k < 0.2: return rf"\boxed{{{rng.choice(['2.', 'x', '', '{1}'])}}}"
    boxes = [rf"\boxed{{ {rng.randint(-1, n)} }}" for _ in range(rng.randint(1, 3))]
    return " then ".join(boxes)

def test_processbench_official_matches_transcription():
    rng = random.Random(2)
    for case in range(N_CASES):
        n = rng.randint(1, 8)
        m = rng.randint(1, 10)
        labels = [rng.choice([-1] + list(range(n))) for _ in range(m)]
        answers = [random_pb_answer(rng, n) for _ in range(m)]
        preds = [t_pb_extract(a) for a in answers]
        assert [parse_pb_official(a) for a in answers] == preds
        a1, a2, f1 = t_pb_metrics(preds, labels)
        got = processbench_scores(preds, labels)
        for x, y in ((got["acc_error"] * 100, a1), (got["acc_correct"] * 100, a2), (got["f1"] * 100, f1)):
            assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y), (case, preds, labels)

def test_processbench_average_is_numpys_mean():
    rng = random.Random(3)
    for _ in range(N_CASES):
        f = [rng.choice([float("nan"), rng.random()]) if rng.random() < 0.1 else rng.random() for _ in range(4)]
        want = np.mean(f)
        got = processbench_average(f)
        assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want)
