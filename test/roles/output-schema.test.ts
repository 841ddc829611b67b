import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { createOutputValidator, OutputSchemaError } from "../../src/roles/output-schema.js";
import { ROLES, type Role } from "../../src/roles/role-names.js";
import { REPO, ROLE_FIELD, validOutput } from "./output-schema-fixtures.js";

const SCHEMAS = join(REPO, "schemas");
const validator = createOutputValidator(SCHEMAS);

function schemaOf(role: Role): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS, `${role}.json`), "utf8")) as Record<string, unknown>;
}

/** Every object-typed node of a schema, with its JSON pointer. */
function objectNodes(node: unknown, path = ""): Array<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== "object") return [];
  const out: Array<[string, Record<string, unknown>]> = [];
  const record = node as Record<string, unknown>;
  if (record.type === "object") out.push([path, record]);
  for (const [key, child] of Object.entries(record))
    out.push(...objectNodes(child, `${path}/${key}`));
  return out;
}

describe.each(ROLES)("schemas/%s.json", (role) => {
  it("compiles with ajv in strict mode", () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    expect(() => ajv.compile(schemaOf(role))).not.toThrow();
  });

  it("requires verdict, summary and the role's field, with additionalProperties false everywhere", () => {
    const schema = schemaOf(role);
    expect(schema.required).toEqual(["verdict", "summary", ROLE_FIELD[role]]);
    const nodes = objectNodes(schema);
    expect(nodes.length).toBeGreaterThan(1);
    for (const [path, node] of nodes) expect(node.additionalProperties, path).toBe(false);
  });

  it("accepts the recorded PASS output", () => {
    expect(validator.validateStructured(role, validOutput(role))).toEqual({ ok: true });
  });

  it("accepts a 200-character summary and refuses 199", () => {
    const out = validOutput(role);
    out.summary = "s".repeat(200);
    expect(validator.validateStructured(role, out).ok).toBe(true);
    out.summary = "s".repeat(199);
    const result = validator.validateStructured(role, out);
    expect(result).toEqual({
      ok: false,
      errors: ["/summary must NOT have fewer than 200 characters"],
    });
  });

  it("refuses an extra property at the top level, naming it", () => {
    const out = { ...validOutput(role), confidence: "high" };
    expect(validator.validateStructured(role, out)).toEqual({
      ok: false,
      errors: ["(root) must NOT have additional properties: confidence"],
    });
  });

  it("refuses a missing role field, a missing verdict and a lowercase verdict", () => {
    const out = validOutput(role);
    delete out[ROLE_FIELD[role]];
    expect(validator.validateStructured(role, out)).toEqual({
      ok: false,
      errors: [`(root) must have required property '${ROLE_FIELD[role]}'`],
    });
    const noVerdict = validOutput(role);
    delete noVerdict.verdict;
    expect(validator.validateStructured(role, noVerdict).ok).toBe(false);
    expect(validator.validateStructured(role, { ...validOutput(role), verdict: "pass" })).toEqual({
      ok: false,
      errors: ["/verdict must be equal to one of the allowed values: PASS, FAIL"],
    });
  });

  it("accepts an optional request and refuses a malformed one", () => {
    const request = {
      id: "request-1",
      kind: "clarification",
      question: "Which label should start a chain?",
      context: "The issue names two labels.",
      choices: ["forge", "forge:run"],
    };
    expect(validator.validateStructured(role, { ...validOutput(role), request }).ok).toBe(true);
    const bad = [
      { ...request, id: "../etc" },
      { ...request, extra: 1 },
      { ...request, question: undefined },
      { ...request, choices: ["only one"] },
    ];
    for (const r of bad) {
      expect(
        validator.validateStructured(role, { ...validOutput(role), request: r }).ok,
        JSON.stringify(r),
      ).toBe(false);
    }
  });

  it("refuses a non-object", () => {
    for (const value of [null, "PASS", 1, [validOutput(role)]]) {
      expect(validator.validateStructured(role, value).ok).toBe(false);
    }
  });
});

describe("role fields", () => {
  it("architect: a plan needs at least one complete task, nested extras refused", () => {
    const out = validOutput("architect");
    const plan = out.plan as { tasks: Array<Record<string, unknown>> };
    expect(validator.validateStructured("architect", { ...out, plan: { tasks: [] } }).ok).toBe(
      false,
    );
    const task = plan.tasks[0] as Record<string, unknown>;
    for (const key of ["objective", "files", "steps", "verification"]) {
      const copy = { ...task };
      delete copy[key];
      expect(
        validator.validateStructured("architect", { ...out, plan: { tasks: [copy] } }).ok,
        key,
      ).toBe(false);
    }
    expect(
      validator.validateStructured("architect", {
        ...out,
        plan: { tasks: [{ ...task, steps: [] }] },
      }).ok,
    ).toBe(false);
    expect(
      validator.validateStructured("architect", {
        ...out,
        plan: { tasks: [{ ...task, owner: "me" }] },
      }),
    ).toEqual({ ok: false, errors: ["/plan/tasks/0 must NOT have additional properties: owner"] });
    expect(
      validator.validateStructured("architect", { ...out, plan: { ...plan, notes: "x" } }).ok,
    ).toBe(false);
  });

  it("builder: evidence needs an integer exit code and at least one entry", () => {
    const out = validOutput("builder");
    const evidence = out.evidence as Array<Record<string, unknown>>;
    expect(validator.validateStructured("builder", { ...out, evidence: [] }).ok).toBe(false);
    expect(
      validator.validateStructured("builder", {
        ...out,
        evidence: [{ ...evidence[0], exit_code: "0" }],
      }),
    ).toEqual({ ok: false, errors: ["/evidence/0/exit_code must be integer"] });
    expect(
      validator.validateStructured("builder", {
        ...out,
        evidence: [{ ...evidence[0], exit_code: 0.5 }],
      }).ok,
    ).toBe(false);
    expect(
      validator.validateStructured("builder", {
        ...out,
        changes: [{ file: "a.ts", description: "x", why: "y" }],
      }).ok,
    ).toBe(false);
    expect(
      validator.validateStructured("builder", {
        ...out,
        evidence: [{ ...evidence[0], stdout: "" }],
      }).ok,
    ).toBe(false);
  });

  it.each(["reviewer", "security"] as const)(
    "%s: findings may be empty; severity and location are checked",
    (role) => {
      const out = validOutput(role);
      const finding = { severity: "minor", location: "src/a.ts:10", description: "nit" };
      expect(validator.validateStructured(role, { ...out, findings: [] }).ok).toBe(true);
      for (const location of ["general", "src/a.ts", "src/a.ts:10", "src/a.ts:10-12"]) {
        expect(
          validator.validateStructured(role, { ...out, findings: [{ ...finding, location }] }).ok,
          location,
        ).toBe(true);
      }
      for (const bad of [
        { ...finding, severity: "critical" },
        { ...finding, location: "src/a.ts line 10" },
        { ...finding, location: "" },
        { ...finding, description: "" },
        { ...finding, cwe: "CWE-79" },
      ]) {
        expect(
          validator.validateStructured(role, { ...out, findings: [bad] }).ok,
          JSON.stringify(bad),
        ).toBe(false);
      }
    },
  );
});

describe("createOutputValidator", () => {
  it("refuses a directory without schemas (a broken contract must stop the chain)", () => {
    expect(() => createOutputValidator(join(REPO, "fixtures", "outputs"))).toThrow(
      OutputSchemaError,
    );
  });

  it("lists at most 20 errors and says how many more", () => {
    const findings = Array.from({ length: 30 }, () => ({
      severity: "nope",
      location: "general",
      description: "x",
    }));
    const result = validator.validateStructured("reviewer", {
      ...validOutput("reviewer"),
      findings,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(21);
      expect(result.errors[20]).toBe("… and 10 more errors");
    }
  });
});
