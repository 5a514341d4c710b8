"""loop_svc: the agentic loop. Owns `session:{chat_id}` in Redis, collects an
endpoint's parameters over several turns (rules first, clarifying questions in
en/et/ru), and hands complete calls to caller_svc, relaying its stream."""
