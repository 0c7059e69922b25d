"""`cargo mcp-runtime call prepare_review` on the study server, its three input requests
answered in a terminal: a pseudo-terminal stands in for the person. Roots come from the working
directory; the sampling request's reply and the elicitation's form are typed at their prompts.
Usage: pty_call.py CLI STUDY_SERVER"""
import json, os, pty, select, subprocess, sys, time

cli, study = sys.argv[1:]
leader, follower = pty.openpty()
child = subprocess.Popen(
    [cli, "mcp-runtime", "call", "prepare_review", "topic=release", "--quiet", "--", study, "--stdio"],
    stdin=follower, stderr=follower, stdout=subprocess.PIPE,
)
os.close(follower)
seen = b""

# Each prompt, and what the person types at it (the client asks in its own order).
answers = {
    "Reply: ": "Check the rollback plan first.",
    "goal (string, required): ": "safety",
    "Send these answers? [Y/n, or c to cancel] ": "y",
}
answered = set()
deadline = time.time() + 120
while len(answered) < len(answers):
    if time.time() > deadline or child.poll() is not None:
        sys.exit(f"answered {sorted(answered)} only; the terminal read:\n{seen.decode(errors='replace')}")
    ready, _, _ = select.select([leader], [], [], 1)
    if not ready:
        continue
    try:
        seen += os.read(leader, 4096)
    except OSError:
        continue
    for prompt, typed in answers.items():
        if prompt.encode() in seen:
            seen = seen.split(prompt.encode(), 1)[1]
            os.write(leader, (typed + "\n").encode())
            answered.add(prompt)
out, _ = child.communicate(timeout=60)
assert child.returncode == 0, (child.returncode, out)
result = json.loads(out)
assert result == {"goal": "safety", "rootCount": 1, "sample": "Check the rollback plan first.", "topic": "release"}, result
print("ok: prepare_review's three input requests answered in a terminal:", json.dumps(result))
