# $XDG_CONFIG_HOME/agent/config.hcl (~/.config/agent/config.hcl), never agent.hcl: while this
# entry is there, the kernel launches this local build for {{name}} instead of the release
# required_providers names.
dev_overrides {
  {{name}} = "{{directory}}/dist/provider.mjs"
}
