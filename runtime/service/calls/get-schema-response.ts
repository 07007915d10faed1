/**
 * The GetSchemaResponse of a provider, built once when the service is created.
 *
 * seed: GetSchema — MUST be re-queryable cheaply and MUST NOT require a network call.
 */
import { create } from "@bufbuild/protobuf";
import {
  AttrType,
  ConfigAttributeSchema,
  ConfigSchemaSchema,
  type ConfigAttribute,
} from "../../generated/pluggableharness/config/v1/config_pb.js";
import { GetSchemaResponseSchema, type GetSchemaResponse } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import type {
  ConfigAttributeDeclaration,
  ConfigAttributeTypeName,
  ProviderDefinition,
} from "../../provider/provider-definition.js";
import { supportedHookPointsOf } from "../../provider/hook-subscriptions.js";
import { toolDeclarationToWire } from "../../schema/wire-schema.js";

const attrTypeToWire: { readonly [T in ConfigAttributeTypeName]: AttrType } = {
  string: AttrType.STRING,
  number: AttrType.NUMBER,
  bool: AttrType.BOOL,
  list_string: AttrType.LIST_STRING,
  list_number: AttrType.LIST_NUMBER,
  map_string: AttrType.MAP_STRING,
  object: AttrType.OBJECT,
};

/** A config attribute declaration as the wire config.v1.ConfigAttribute. */
export function configAttributeToWire(a: ConfigAttributeDeclaration): ConfigAttribute {
  return create(ConfigAttributeSchema, {
    name: a.name,
    type: attrTypeToWire[a.type],
    required: a.required,
    sensitive: a.sensitive,
    description: a.description,
    objectAttributes: (a.objectAttributes ?? []).map(configAttributeToWire),
    ...(a.defaultJson !== undefined ? { defaultJson: a.defaultJson } : {}),
  });
}

/** The provider's GetSchemaResponse: tools, slash commands, config schema, hook points. */
export function buildGetSchemaResponse(provider: ProviderDefinition<unknown>): GetSchemaResponse {
  return create(GetSchemaResponseSchema, {
    tools: provider.tools.map((t) => toolDeclarationToWire(t.declaration)),
    slashCommands: provider.slashCommands.map((c) => ({
      name: c.name,
      description: c.description,
      template: c.template,
    })),
    configSchema: create(ConfigSchemaSchema, { attributes: provider.config.attributes.map(configAttributeToWire) }),
    supportedHookPoints: supportedHookPointsOf(provider.hooks),
  });
}
