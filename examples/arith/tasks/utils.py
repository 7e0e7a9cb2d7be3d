
import re
def process_results(doc, results):
    "1.0 when the last number of the generation is the target (exact, no hub metric needed offline)."
    nums = re.findall(r"-?\d+", results[0])
    return {"exact_match": float(bool(nums) and nums[-1] == doc["answer"])}
