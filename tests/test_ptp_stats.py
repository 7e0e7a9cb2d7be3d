"Statistics on inputs with hand-checkable answers."
import numpy as np, pytest
import pandas as pd
from reasoning_integrity.lines.ptp.stats import (sign_test, paired_t, paired_t_degenerate, js_divergence,
                                                   js_permutation_test, bonferroni, correct_pvalues, paper_phat,
                                                   paired_accuracy_test, correlation)
from reasoning_integrity.lines.ptp.protocol import modularity_table

def test_sign_test_exact():
    # 3 discordant pairs all won by the intervention: p = 2 * 0.5**3 = 0.25
    assert sign_test([0, 0, 0, 1], [1, 1, 1, 1])[1] == pytest.approx(0.25)

def test_paired_t_known_value():
    t, p = paired_t([0, 0, 0, 0], [1, 2, 3, 4])   # d = 1..4: mean 2.5, sd 1.291, t = 3.873
    assert t == pytest.approx(2.5 / (np.std([1, 2, 3, 4], ddof=1) / 2))
    # Student t with 3 df has a closed-form CDF: F(t) = 1/2 + (theta + sin(theta) cos(theta)) / pi, theta = atan(t/sqrt 3)
    th = np.arctan(t / np.sqrt(3))
    assert p == pytest.approx(2 * (0.5 - (th + np.sin(th) * np.cos(th)) / np.pi))   # = 0.0304

def test_js_and_permutation():
    assert js_divergence([("a",), ("b",)], [("a",), ("a",)]) == pytest.approx(
        0.5 * (0.5 * np.log2(0.5 / 0.75) + 0.5 * np.log2(0.5 / 0.25)) + 0.5 * (1 * np.log2(1 / 0.75)))
    assert js_permutation_test([("a",)] * 12, [("b",)] * 12)[1] < 0.01

def test_bonferroni_and_paired():
    assert bonferroni([0.02, 0.5]).tolist() == pytest.approx([0.04, 1.0])
    r = paired_accuracy_test([1, 0, 1], [1, 0, 0])
    assert (r["a_only"], r["b_only"], r["p"]) == (1, 0, 1.0)
    assert correlation([1, 2, 3], [1, 2, 3])[0] == pytest.approx(1.0)

def test_degenerate_paired_t_is_nan_and_flagged():
    # n = 3 traces, every intervened trace one step longer: scipy says t = inf, p = 0; the p is undefined
    t, p = paired_t([5, 7, 9], [6, 8, 10])
    assert np.isnan(t) and np.isnan(p) and paired_t_degenerate([5, 7, 9], [6, 8, 10])
    base = pd.DataFrame(dict(task="t", index=[0, 1, 2], n_steps=[5, 7, 9], abstract=[("f",)] * 3,
                             correct=[True, False, True]))
    iv = base.assign(n_steps=base.n_steps + 1, step="f", kind="force")
    m = modularity_table(base, iv, n_resamples=100).set_index("statistic")
    assert np.isnan(m.loc["S_numSteps", "p"]) and np.isnan(m.loc["S_numSteps", "p_hat"])
    assert m.loc["S_numSteps", "degenerate"] and "undefined" in m.loc["S_numSteps", "note"]
    # a non-degenerate table row next to it keeps a real p
    iv2 = base.assign(n_steps=base.n_steps + [1, 2, 4], step="f", kind="force")
    assert not np.isnan(modularity_table(base, iv2, n_resamples=100).p[0])

def test_paper_phat_columns_reproduced_by_holm_sidak():
    # the paper's Table 9 and 10 p-hat from their printed p: multipletests' default ('hs'), one family per statistic
    hs = paper_phat()
    assert hs.abs_diff.max() <= 0.0035 and hs.within_rounding.all()
    # Bonferroni (per statistic or pooled) does not give the printed numbers
    assert paper_phat("bonferroni").abs_diff.max() > 0.2 and paper_phat("bonferroni", "pooled").abs_diff.max() > 0.2

def test_correct_pvalues_families():
    df = pd.DataFrame(dict(statistic=["a", "a", "b", "b"], p=[0.01, 0.04, 0.02, np.nan]))
    # Holm-Sidak in family a: 1-(1-0.01)^2 = 0.0199, then max(0.0199, 0.04); family b: one test, NaN kept out
    assert correct_pvalues(df)[:3] == pytest.approx([1 - 0.99 ** 2, 0.04, 0.02]) and np.isnan(correct_pvalues(df)[3])
    assert correct_pvalues(df, "bonferroni", "pooled")[:3] == pytest.approx([0.03, 0.12, 0.06])
