# agent.hcl: the {{name}} provider. The kernel checks its lock file entry before launching it
# and decodes the provider block against the provider's ConfigSchema.
required_providers {
  {{name}} = {
    source  = "{{source}}"
    version = "~> 0.1.0"
  }
}

provider "{{name}}" {
  # The folders the tools may touch: the provider's capability boundary. A relative path is taken
  # from the provider's working directory.
  # list(string), required
  roots = []

  # A token for a service the provider calls. A secret: never echoed in errors, logs or events.
  # string, optional, sensitive: exactly env("…"), never a literal
  # api_token = env("{{upperName}}_API_TOKEN")
}
