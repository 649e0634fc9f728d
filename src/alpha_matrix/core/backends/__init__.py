"""Model access, for the planner (core/planning) and the agent under test (core/agent) alike.

HTTP clients for Ollama and OpenAI-compatible servers, the embedded llama.cpp model, replay of
recorded planner texts, bounded retries, the served-model checks (daemon reachable, model
pulled, model listed) and one error family (``errors.py``). Nothing here knows a plan, an
observation or a suite: the planner and the agent shape their requests and records themselves.
"""
