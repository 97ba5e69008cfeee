// The jsPsych plugin's parameters that are protocol settings, taken from the protocol
// schema (tol_tasks/protocol_format/model.py) through generated/model.json, which
// build.mjs writes with tol_tasks.web.jsdata: type, choices, default and description are
// declared once, in Python (tests/test_protocol_format_parameters.py checks the three
// vocabularies agree).

import { ParameterType } from "jspsych";
import MODEL from "./generated/model.json" with { type: "json" };

const TYPES = {
  bool: ParameterType.BOOL,
  int: ParameterType.INT,
  float: ParameterType.FLOAT,
  str: ParameterType.STRING,
  choice: ParameterType.SELECT,
};

/**
 * A plugin parameter made from the schema's field `path` ("input.mode").
 * `changes` replaces what the plugin does differently (e.g. a null choice meaning "none").
 */
export function fromModel(path, changes = {}) {
  const field = MODEL[path];
  if (!field || !(field.kind in TYPES)) throw new Error(`modelparams.js: no plain field ${path} in the protocol schema`);
  const param = { type: TYPES[field.kind], default: field.default, description: field.description, model: path };
  if (field.kind === "choice") param.options = [...field.choices];
  return { ...param, ...changes };
}
