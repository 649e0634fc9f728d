"""A toy suite, whole in this folder: what a new suite is (test_a_new_suite_is_one_folder.py).

A kettle heats water; at each reading the agent keeps it heating (``carry_on``) or cools it down
(``cool_down``) when the water is hotter than the brief's limit. Its pieces are the real suites':
a ``Suite`` object (plugin.py), its situation schema, tools and prompt values (situation.py), its
reference decision with per-episode memory (reference_agent.py), an offline runner (run.py), its
summary, headline and report (report.py) and its prompt template (agent_toy_v1.yaml).
"""
