"""What the hard-pair NLI build learns and what it costs (issue 43 §3).

`.venv/bin/python benchmarks/nli_hard_pairs.py [--hard DIR]`: the project's default NLI build (`models/nli-minilm`) and
the build trained with minimal-edit pairs added (`ri models build-nli --hard-pairs`, `models/nli-minilm-hard`) on

1. the held-out battery of minimal pairs written by hand for the tests (`tests/data/nli_minimal_pairs.jsonl`, 353
   contradictions in six kinds, 104 entailed or neutral controls): the share of contradictions read as contradiction
   (argmax), per kind, and the share of controls wrongly read as contradiction;
2. the build's held-out MNLI/SNLI/SICK test pairs (the splits of `nli_splits`, 2,000 per source as the build caps them),
   paired: accuracy of each build, the difference with a 95 % interval and McNemar's exact p on the discordant pairs.

Ends with `BENCH nli_minimal_pairs contradiction_recall=<hard build> target=0.9 ok|short` and
`BENCH nli_hard_heldout max_drop_points=<largest accuracy drop of the three> target=0.5 ok|short`.
"""
import argparse, json, os, sys
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("RI_DATA_DIR", str(ROOT.parent / "shared" / "data"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import pandas as pd

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hard", default=None, help="the hard-pair build (default: cache_dir('models/nli-minilm-hard'))")
    a = ap.parse_args(argv)
    from statsmodels.stats.contingency_tables import mcnemar
    from reasoning_integrity.core.data import cache_dir
    from reasoning_integrity.models.nli import NLIModel, LABELS, default_nli_path
    from reasoning_integrity.models.nli_train import nli_splits
    from reasoning_integrity.models.numeric import weights_sha256
    from _host import Host
    host = Host.start()
    dirs = {"default": default_nli_path(), "hard": Path(a.hard) if a.hard else cache_dir("models/nli-minilm-hard", create=False)}
    models = {k: NLIModel(str(d), cache=False) for k, d in dirs.items() if (d / "model_card.json").exists()}
    for k in models: print(f"{k}: {dirs[k]} (sha256 {str(weights_sha256(dirs[k]))[:12]})")
    bat = pd.read_json(ROOT / "tests" / "data" / "nli_minimal_pairs.jsonl", lines=True)
    pred = {k: np.asarray(LABELS)[m.predict(bat.premise.tolist(), bat.hypothesis.tolist()).argmax(1)] for k, m in models.items()}
    contra = bat.label == "contradiction"
    rows = []
    for k, p in pred.items():
        hit = pd.Series(p == "contradiction", index=bat.index)
        rows.append(dict(build=k, contradiction_recall=hit[contra].mean(), controls_read_as_contradiction=hit[~contra].mean(),
                         **{c: hit[contra & (bat.category == c)].mean() for c in sorted(bat.category[contra].unique())}))
    B = pd.DataFrame(rows).set_index("build").T
    print(f"\nbattery: {contra.sum()} contradictions, {(~contra).sum()} controls\n" + B.to_string(float_format=lambda x: f"{x:.3f}"))
    test = nli_splits(); test = test[test.split == "test"]
    test = test.sample(frac=1.0, random_state=0).groupby("source", sort=False).head(2000)   # the build's max_eval cap
    worst = -np.inf
    if len(models) == 2:
        print("\nheld-out (paired, hard - default):")
        for src, d in test.groupby("source", sort=False):
            ok = {k: np.asarray(LABELS)[m.predict(d.premise.tolist(), d.hypothesis.tolist()).argmax(1)] == d.label.to_numpy()
                  for k, m in models.items()}
            diff = ok["hard"].astype(float) - ok["default"].astype(float)
            m_, se = diff.mean() * 100, diff.std(ddof=1) / np.sqrt(len(diff)) * 100
            b, c = int((ok["default"] & ~ok["hard"]).sum()), int((~ok["default"] & ok["hard"]).sum())
            pval = mcnemar([[0, b], [c, 0]], exact=True).pvalue if b + c else 1.0
            print(f"  {src}: n {len(d)}, default {ok['default'].mean():.2%}, hard {ok['hard'].mean():.2%}, "
                  f"difference {m_:+.2f} [{m_ - 1.96 * se:+.2f}, {m_ + 1.96 * se:+.2f}] points, discordant {b} vs {c}, McNemar p {pval:.3f}")
            worst = max(worst, -m_)
    host.stop(); print(host.describe())
    rec = B.loc["contradiction_recall", "hard"] if "hard" in B else float("nan")
    print(host.bench("nli_minimal_pairs", "contradiction_recall", round(float(rec), 3), 0.9, ok=rec >= 0.9))
    if len(models) == 2: print(host.bench("nli_hard_heldout", "max_drop_points", round(float(worst), 2), 0.5, ok=worst <= 0.5))

if __name__ == "__main__": sys.exit(main())
