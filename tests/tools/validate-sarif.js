// Validates a SARIF log against the SARIF 2.1.0 JSON schema (draft-04), as published by
// the SARIF authors. Usage: node validate-sarif.js SCHEMA LOG. Exit 1 with the errors when
// the log is not valid. The validator and the schema are installed by `make sarif-tools`.
"use strict";
const path = require("path");
const fs = require("fs");
const tools = path.join(__dirname, "..", "..", "build", "tools", "node_modules");
const Ajv = require(path.join(tools, "ajv-draft-04"));
const addFormats = require(path.join(tools, "ajv-formats"));

const [schemaPath, logPath] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
// The published schema has a pattern JavaScript rejects in unicode mode.
const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);
const log = JSON.parse(fs.readFileSync(logPath, "utf8"));
if (!validate(log)) {
	for (const e of validate.errors.slice(0, 10))
		console.error(`${logPath}: ${e.instancePath || "/"} ${e.message}`);
	process.exit(1);
}
