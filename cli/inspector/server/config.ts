/**
 * Configure as the page drives it: the provider's config attributes, the config in force (the one
 * the provider accepted last), the last one sent, and where Configure stands. Secret values never
 * go back to the page: they are masked, and the page names the ones to keep instead of sending them.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ConfigAttributeDeclaration } from "harness-tool";
import type { ConfigAttributeView, ConfigStateView, ConfigureRequestBody, Json } from "../protocol/page-protocol.js";
import type { PageChannel } from "./page-channel.js";
import { configAttributeViews, maskConfig, secretsSet } from "./secret-masking.js";
import { failureAnswer, InspectRequestError, isJsonObject, type ProviderLink } from "./session-state.js";

const unconfigured: ConfigStateView = { config: {}, inForce: false, status: "unconfigured", secretsSet: [] };

/**
 * Copies the current value of the sensitive attribute at `path` (names through object attributes)
 * into `next`, creating the objects on the way; false when `path` names no sensitive attribute.
 */
function keepSecret(
  attributes: readonly ConfigAttributeDeclaration[],
  current: JsonObject | undefined,
  next: JsonObject,
  path: readonly string[],
): boolean {
  const [name, ...rest] = path;
  const attribute = attributes.find((a) => a.name === name);
  if (!attribute || name === undefined) return false;
  if (rest.length === 0) {
    if (!attribute.sensitive) return false;
    if (current && Object.hasOwn(current, name)) next[name] = current[name] as JsonValue;
    return true;
  }
  if (attribute.type !== "object" || !attribute.objectAttributes) return false;
  const inner = current?.[name];
  const target = isJsonObject(next[name]) ? (next[name] as JsonObject) : (next[name] = {});
  return keepSecret(attribute.objectAttributes, isJsonObject(inner) ? inner : undefined, target, rest);
}

/** The provider's config as the session holds it. */
export class ProviderConfig {
  readonly #link: ProviderLink;
  readonly #page: PageChannel;
  #attributes: readonly ConfigAttributeDeclaration[];
  /** The config the provider accepted last (it keeps it through a rejected Configure). */
  #config: JsonObject | undefined;
  /** The last config sent, accepted or not (a restart sends the accepted one, else this). */
  #lastSent: JsonObject = {};
  #state: ConfigStateView = unconfigured;

  constructor(link: ProviderLink, page: PageChannel, attributes: readonly ConfigAttributeDeclaration[]) {
    this.#link = link;
    this.#page = page;
    this.#attributes = attributes;
  }

  /** Where Configure stands, as the page shows it. */
  get state(): ConfigStateView {
    return this.#state;
  }

  /** The attributes as the Configure form draws them. */
  attributeViews(): ConfigAttributeView[] {
    return configAttributeViews(this.#attributes);
  }

  /**
   * A relaunched provider's attributes; the provider starts unconfigured. Returns the config to
   * send it: the one in force, else the last one sent.
   */
  relaunched(attributes: readonly ConfigAttributeDeclaration[]): JsonObject {
    this.#attributes = attributes;
    const configured = this.#config ?? this.#lastSent;
    this.#state = unconfigured;
    this.#config = undefined;
    return configured;
  }

  /** Sends Configure; true when the provider accepted it. `keep` fills sensitive attributes from the current config, so the page never needs them. */
  async configure(body: ConfigureRequestBody): Promise<boolean> {
    if (!isJsonObject(body.config)) throw new InspectRequestError("config must be a JSON object");
    const config = structuredClone(body.config) as JsonObject;
    for (const name of body.keep ?? []) {
      if (typeof name !== "string" || !keepSecret(this.#attributes, this.#config, config, name.split("."))) {
        throw new InspectRequestError(`keep: ${JSON.stringify(name)} is not a sensitive attribute`);
      }
    }
    // Known before the call: a rejection that echoes the secret is redacted too.
    this.#page.keeper.remember(this.#attributes, config);
    this.#lastSent = config;
    const masked = maskConfig(this.#attributes, config) as { [key: string]: Json };
    let ok: boolean;
    try {
      await this.#link.launched.configure(config, this.#link.bound(30_000));
      this.#config = config;
      this.#state = {
        config: masked,
        inForce: true,
        status: "accepted",
        secretsSet: secretsSet(this.#attributes, config),
      };
      ok = true;
    } catch (error) {
      const answer = failureAnswer(error);
      const message = answer.ok ? "" : answer.message;
      const details = answer.ok ? undefined : answer.details;
      // The provider keeps the config it accepted before: that one is still in force.
      this.#state = {
        config: this.#state.config,
        inForce: this.#state.inForce,
        status: "rejected",
        secretsSet: secretsSet(this.#attributes, this.#config ?? {}),
        rejected: masked,
        error: { message, ...(details !== undefined ? { details } : {}) },
      };
      ok = false;
    }
    this.#page.publish({ kind: "config", state: this.#state });
    return ok;
  }
}
