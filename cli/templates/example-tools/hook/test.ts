  it("vetoes a plan that touches a path outside the roots, and allows one inside", async () => {
    const plan = (path: string) => ({ plan: { turnId: "1", items: [{ id: "i1", toolName: "save_note", input: { path } }] } });
    const verdict = async (path: string) => {
      const { outcome } = await provider.dispatchHook("plan-ready", "veto", plan(path));
      return outcome.case === "veto" ? outcome.value.decision : undefined;
    };
    assert.equal(await verdict("notes/a.txt"), HookDecision.ALLOW);
    assert.equal(await verdict("/etc/passwd"), HookDecision.DENY);
  });

  it("writes an audit line through the kernel's Log after a tool call", async () => {
    const { outcome } = await provider.dispatchHook("post-tool-call", "observe", { call: { id: "c1", toolName: "save_note" } });
    assert.equal(outcome.case, "observe");
    const line = await provider.kernel.waitFor("log", (request) => request.entry?.message === "audit: tool call finished");
    assert.equal(line.entry?.fields?.["tool"], "save_note");
  });
