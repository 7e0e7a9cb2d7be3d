"Statistics on inputs with hand-checkable answers."
import numpy as np, pytest
from reasoning_integrity.metrics.ptp_stats import (sign_test, paired_t, js_divergence, js_permutation_test,
                                                   bonferroni, paired_accuracy_test, correlation)

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
