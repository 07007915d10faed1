  it("streams a command's output, then its exit status and result", async () => {
    const { events } = await provider.invoke({ id: "4", toolName: "run_command", arguments: { command: "echo", args: ["hello"] }, callContext }).done;
    const cases = events.map((e) => e.event.case);
    assert.ok(cases.includes("outputChunk"));
    assert.equal(cases.filter((c) => c === "exitStatus").length, 1);
    assert.equal(cases.at(-1), "result");
  });
