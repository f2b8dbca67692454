"""generate: typed outcomes from a rendered prompt, checked against the blocks it showed.

Asker(searcher, generator, sessions, budget_tokens=…, levels=…).ask(question, principal)
ask_json(result)                      # the ``ask --json`` / ``POST /api/ask`` shape
ExtractiveGenerator()                 # default backend, no LLM
OpenAIChatGenerator(base_url, model, …)
verify(outcome, prompt) / gate(hits)  # backend-independent checks
"""
