  // Hook subscriptions, beside the tools (`npx harness-tool hook --help` fires one by hand).
  hooks: {
    // plan-ready, veto: a plan naming a `path` outside the configured roots is denied before
    // anything in it applies. A throw or a timeout here denies too: the kernel fails veto closed.
    "plan-ready": {
      async veto(payload, context) {
        const paths = (payload.plan?.items ?? []).map((item) => item.input?.["path"]).filter((p) => typeof p === "string");
        const outside = paths.filter((p) => !context.config.roots.some((root) => isWithin(root, p)));
        if (outside.length === 0) return "allow";
        context.log.warn("denied a plan that touches paths outside the roots", { outside });
        return "deny";
      },
    },
    // post-tool-call, observe: one audit line per finished tool call, through the kernel's Log.
    "post-tool-call": {
      async observe(payload, context) {
        await context.kernel.log("info", "audit: tool call finished", { tool: payload.call?.toolName ?? "", outcome: payload.outcome.case ?? "" });
      },
    },
  },
