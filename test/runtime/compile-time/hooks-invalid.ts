// Invalid hook declarations. Each `@ts-expect-error` sits on the line above the property the
// compiler must reject; an error that moves elsewhere or disappears fails the type-check under
// TS 5.9 and TS 7 (test/typecheck.test.ts). builder-diagnostics.test.ts asserts the codes and messages.
import { defineProvider } from "../../../runtime/index.js";
import type { MappingHandlers } from "../../plugin/golden/mapping_tool.js";

const spec = { name: "p", version: "1", source: "github.com/acme/s", tools: {} } as const;

export const observeAnswers = defineProvider(
  {
    ...spec,
    hooks: {
      "post-tool-call": {
        // @ts-expect-error an observer answers nothing
        observe: async () => "deny",
      },
    },
  },
  {},
);

export const vetoMaybe = defineProvider(
  {
    ...spec,
    hooks: {
      "plan-ready": {
        // @ts-expect-error a veto is allow or deny
        veto: async () => "maybe",
      },
    },
  },
  {},
);

export const vetoBoolean = defineProvider(
  {
    ...spec,
    hooks: {
      "plan-ready": {
        // @ts-expect-error a veto is not a boolean
        veto: async () => true,
      },
    },
  },
  {},
);

export const vetoNothing = defineProvider(
  {
    ...spec,
    hooks: {
      "pre-tool-call": {
        // @ts-expect-error a veto must decide
        veto: async () => {},
      },
    },
  },
  {},
);

export const transformImmutable = defineProvider(
  {
    ...spec,
    hooks: {
      "plan-ready": {
        // @ts-expect-error nothing at plan-ready may change
        transform: async (payload: unknown) => payload,
      },
    },
  },
  {},
);

export const transformModel = defineProvider(
  {
    ...spec,
    hooks: {
      "pre-model-call": {
        // @ts-expect-error the model is immutable
        transform: async (payload) => ({ messages: payload.messages, model: payload.model }),
      },
    },
  },
  {},
);

export const transformWholePayload = defineProvider(
  {
    ...spec,
    hooks: {
      "pre-model-call": {
        // @ts-expect-error a transform returns only the mutable fields
        transform: async (payload) => payload,
      },
    },
  },
  {},
);

export const identityWhereMutable = defineProvider(
  {
    ...spec,
    hooks: {
      "pre-model-call": {
        // @ts-expect-error pre-model-call's transform is a handler
        transform: "identity",
      },
    },
  },
  {},
);

export const noMode = defineProvider(
  {
    ...spec,
    hooks: {
      // @ts-expect-error a point needs a mode
      "session-end": {},
    },
  },
  {},
);

export const unknownPoint = defineProvider(
  {
    ...spec,
    hooks: {
      // @ts-expect-error context-assemble is not a hook point
      "context-assemble": { observe: async () => {} },
    },
  },
  {},
);

export const unknownMode = defineProvider(
  {
    ...spec,
    hooks: {
      "post-apply": {
        observe: async () => {},
        // @ts-expect-error block is not a mode
        block: async () => "deny",
      },
    },
  },
  {},
);

export const wrongPayload = defineProvider(
  {
    ...spec,
    hooks: {
      "session-start": {
        observe: async (payload) => {
          // @ts-expect-error a session-start payload has no plan
          void payload.plan;
        },
      },
    },
  },
  {},
);

// A generated provider whose proto lists supported_hook_points [PRE_TOOL_CALL, POST_TOOL_CALL].
declare const mappingTools: Omit<MappingHandlers, "hooks">;

export const generatedMissingPoint: MappingHandlers = {
  ...mappingTools,
  // @ts-expect-error a listed point needs its subscription
  hooks: { "pre-tool-call": { veto: async () => "allow" } },
};

export const generatedExtraPoint: MappingHandlers = {
  ...mappingTools,
  hooks: {
    "pre-tool-call": { veto: async () => "allow" },
    "post-tool-call": { observe: async () => {} },
    // @ts-expect-error a point the proto does not list
    "plan-ready": { veto: async () => "deny" },
  },
};
