from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import match
from inspect_ai.solver import generate, system_message

SUMS = [(2, 3), (4, 5), (7, 1), (6, 6), (3, 8), (9, 2), (5, 5), (8, 4), (1, 9), (7, 7), (6, 3), (2, 9)]

@task
def arith(careful: bool = False):
    samples = [Sample(id=f"q{i}", input=f"What is {a} + {b}? Work it out step by step, then give the answer.", target=str(a + b),
                      metadata=dict(question=f"What is {a} + {b}?", answer=str(a + b))) for i, (a, b) in enumerate(SUMS)]
    solver = ([system_message("Write one short step per line and check each sum.")] if careful else []) + [generate()]
    return Task(dataset=MemoryDataset(samples), solver=solver, scorer=match(numeric=True),
                config=GenerateConfig(max_tokens=48, temperature=0.0))
