import { describe, expect, it } from "vitest";
import { createOutputValidator } from "../../src/roles/output-schema.js";
import { ROLES, type Role } from "../../src/roles/role-names.js";
import { decideVerdict, decideVerdictFromText } from "../../src/roles/verdict.js";
import { fake } from "../secrets/fake-secrets.js";
import { envelope, REPO, validOutput } from "./output-schema-fixtures.js";

const validator = createOutputValidator(`${REPO}/schemas`);
const decide = (role: Role, raw: unknown, diff?: string) =>
  decideVerdict(role, raw, { validator, ...(diff === undefined ? {} : { diff }) });

/** A recorded PASS envelope of the role with its structured output replaced. */
function withStructured(role: Role, structured: unknown): Record<string, unknown> {
  return { ...envelope(`${role}-pass`), structured_output: structured };
}

/** A valid output with one unknown key one level down (in the role's own field). */
function nestedExtra(role: Role): Record<string, unknown> {
  const out = validOutput(role);
  if (role === "architect")
    (out.plan as { tasks: object[] }).tasks[0] = {
      ...(out.plan as { tasks: object[] }).tasks[0],
      owner: "me",
    };
  else if (role === "builder")
    (out.evidence as object[])[0] = { ...(out.evidence as object[])[0], stdout: "" };
  else out.findings = [{ severity: "minor", location: "general", description: "x", cwe: "CWE-79" }];
  return out;
}

describe.each(ROLES)("decideVerdict: %s", (role) => {
  it("passes the recorded PASS envelope and the bare PASS object", async () => {
    for (const raw of [envelope(`${role}-pass`), validOutput(role)]) {
      const { decision, output } = await decide(role, raw);
      expect(decision).toEqual({
        role,
        verdict: "PASS",
        reasons: [`${role} wrote PASS in schema-valid structured output`],
        overridden: false,
      });
      expect(output).toEqual(validOutput(role));
    }
  });

  // Each row breaks exactly one rule of a PASS that passes above; removing the rule makes the
  // row pass and the test fail.
  const rows: Array<[string, () => unknown, string]> = [
    [
      "summary of 199 characters",
      () => withStructured(role, { ...validOutput(role), summary: "s".repeat(199) }),
      "structured output invalid: /summary must NOT have fewer than 200 characters",
    ],
    [
      "extra top-level property",
      () => withStructured(role, { ...validOutput(role), extra: true }),
      "structured output invalid: (root) must NOT have additional properties: extra",
    ],
    [
      "extra nested property",
      () => withStructured(role, nestedExtra(role)),
      `structured output invalid: ${
        {
          architect: "/plan/tasks/0 must NOT have additional properties: owner",
          builder: "/evidence/0 must NOT have additional properties: stdout",
          reviewer: "/findings/0 must NOT have additional properties: cwe",
          security: "/findings/0 must NOT have additional properties: cwe",
        }[role]
      }`,
    ],
    [
      "missing role field",
      () => {
        const out = validOutput(role);
        delete out[
          { architect: "plan", builder: "evidence", reviewer: "findings", security: "findings" }[
            role
          ]
        ];
        return withStructured(role, out);
      },
      "structured output invalid: (root) must have required property",
    ],
    [
      "verdict FAIL",
      () => withStructured(role, { ...validOutput(role), verdict: "FAIL" }),
      `${role} wrote verdict FAIL`,
    ],
    [
      "structured_output null with subtype success",
      () => withStructured(role, null),
      "no structured output (structured_output is null or missing)",
    ],
    [
      "structured_output missing",
      () => {
        const raw = envelope(`${role}-pass`);
        delete raw.structured_output;
        return raw;
      },
      "no structured output",
    ],
    [
      "is_error true with a valid PASS object",
      () => ({ ...envelope(`${role}-pass`), is_error: true }),
      "the run errored (is_error: true)",
    ],
    [
      "is_error missing",
      () => {
        const raw = envelope(`${role}-pass`);
        delete raw.is_error;
        return raw;
      },
      "the run did not report is_error: false",
    ],
    [
      "subtype error_max_turns with a valid PASS object",
      () => ({ ...envelope(`${role}-pass`), subtype: "error_max_turns" }),
      'the run ended with subtype "error_max_turns"',
    ],
    [
      "subtype missing",
      () => {
        const raw = envelope(`${role}-pass`);
        delete raw.subtype;
        return raw;
      },
      "the run ended with subtype missing",
    ],
    [
      "not a result message",
      () => ({ ...envelope(`${role}-pass`), type: "assistant" }),
      "not a Claude Code result object",
    ],
    [
      "a bare object that claims envelope keys",
      () => ({ ...validOutput(role), is_error: false }),
      "not a Claude Code result object",
    ],
    ["a string", () => "PASS", "output is not a JSON object"],
    ["null", () => null, "output is not a JSON object"],
    ["an array without a result", () => [validOutput(role)], "no result message in the output"],
  ];

  it.each(rows)("fails on %s", async (_name, make, reason) => {
    const { decision } = await decide(role, make());
    expect(decision.verdict).toBe("FAIL");
    expect(decision.overridden).toBe(false);
    expect(
      decision.reasons.some((r) => r.startsWith(reason)),
      decision.reasons.join("\n"),
    ).toBe(true);
  });

  it("fails the recorded runs without structured output", async () => {
    for (const name of ["reviewer-no-structured-output", "security-max-turns"]) {
      const { decision, output } = await decide(role, envelope(name));
      expect(decision.verdict).toBe("FAIL");
      expect(decision.reasons).toContain(
        "no structured output (structured_output is null or missing)",
      );
      expect(output).toBeNull();
    }
    const { decision } = await decide(role, envelope("security-max-turns"));
    expect(decision.reasons).toContain("the run errored (is_error: true)");
  });

  it("takes the last result of a --verbose array", async () => {
    const verbose = envelope("builder-pass-verbose") as unknown as Array<Record<string, unknown>>;
    const result = verbose.at(-1) as Record<string, unknown>;
    const array = [...verbose.slice(0, -1), { ...result, structured_output: validOutput(role) }];
    expect((await decide(role, array)).decision.verdict).toBe("PASS");
    const failed = [...array, { ...result, subtype: "error_during_execution", is_error: true }];
    expect((await decide(role, failed)).decision.verdict).toBe("FAIL");
  });

  it("never uses the free result text as an answer", async () => {
    const raw = envelope(`${role}-pass`);
    raw.result = JSON.stringify(validOutput(role));
    delete raw.structured_output;
    expect((await decide(role, raw)).decision.verdict).toBe("FAIL");
  });
});

describe.each(["reviewer", "security"] as const)(
  "decideVerdict: blocking findings (%s)",
  (role) => {
    const blocking = {
      severity: "blocking",
      location: "src/auth.ts:17",
      description: "The token check is skipped for admins.",
    };

    it("turns a PASS with one blocking finding into FAIL, overridden, saying so", async () => {
      const out = { ...validOutput(role), findings: [blocking] };
      const { decision } = await decide(role, withStructured(role, out));
      expect(decision.verdict).toBe("FAIL");
      expect(decision.overridden).toBe(true);
      expect(decision.reasons).toEqual([
        `1 blocking finding (src/auth.ts:17): a ${role} step with a blocking finding fails; the engine overrides its PASS`,
      ]);
    });

    it("does not call a FAIL with a blocking finding overridden", async () => {
      const out = { ...validOutput(role), verdict: "FAIL", findings: [blocking] };
      const { decision } = await decide(role, out);
      expect(decision).toMatchObject({ verdict: "FAIL", overridden: false });
      expect(decision.reasons).toHaveLength(2);
    });

    it("passes with major and minor findings only", async () => {
      const findings = [
        { ...blocking, severity: "major" },
        { ...blocking, severity: "minor" },
      ];
      expect((await decide(role, { ...validOutput(role), findings })).decision.verdict).toBe(
        "PASS",
      );
    });
  },
);

describe("decideVerdict: blocking findings only matter for reviews", () => {
  it("the architect and builder have no findings field at all", async () => {
    const out = {
      ...validOutput("architect"),
      findings: [{ severity: "blocking", location: "general", description: "x" }],
    };
    const { decision } = await decide("architect", out);
    expect(decision.verdict).toBe("FAIL");
    expect(decision.reasons.join("\n")).not.toContain("blocking finding");
  });
});

describe("decideVerdict: secrets", () => {
  it("security: a fake GitHub token in a finding turns PASS into FAIL, overridden, shown redacted", async () => {
    const token = fake.githubToken();
    const out = {
      ...validOutput("security"),
      findings: [
        {
          severity: "minor",
          location: "src/config.ts:3",
          description: `The config embeds ${token} as a default.`,
        },
      ],
    };
    const raw = withStructured("security", out);
    raw.result = JSON.stringify(out);
    const { decision, output } = await decide("security", raw);
    expect(decision.verdict).toBe("FAIL");
    expect(decision.overridden).toBe(true);
    expect(decision.reasons).toEqual([
      'secret in the structured output at /findings/0/description (github): "The config embeds [REDACTED:github] as a default."',
      "a secret was found: the engine overrides the security PASS",
    ]);
    expect(JSON.stringify(decision)).not.toContain(token);
    expect(JSON.stringify(output)).not.toContain(token);
    expect(JSON.stringify(output)).toContain("[REDACTED:github]");
  });

  it("security: a secret in the diff fails a clean PASS and names the file", async () => {
    const key = fake.awsSecretAssignment();
    const diff = [
      "diff --git a/deploy/prod.env b/deploy/prod.env",
      "--- a/deploy/prod.env",
      "+++ b/deploy/prod.env",
      "@@ -0,0 +1 @@",
      `+${key}`,
      "",
    ].join("\n");
    const { decision } = await decide("security", envelope("security-pass"), diff);
    expect(decision.verdict).toBe("FAIL");
    expect(decision.overridden).toBe(true);
    expect(decision.reasons[0]).toBe(
      'secret in the diff in deploy/prod.env (aws): "+[REDACTED:aws]"',
    );
    expect(JSON.stringify(decision)).not.toContain(fake.awsSecretValue());
    expect(
      (await decide("security", envelope("security-pass"), "+const a = 1;\n")).decision.verdict,
    ).toBe("PASS");
  });

  it("security: a secret in the free result text fails too", async () => {
    const raw = {
      ...envelope("security-pass"),
      result: `Done. I also saw ${fake.slackToken()} in the logs.`,
    };
    const { decision } = await decide("security", raw);
    expect(decision.verdict).toBe("FAIL");
    expect(decision.reasons[0]).toBe(
      `secret in the run's result text (slack): "Done. I also saw [REDACTED:slack] in the logs."`,
    );
  });

  it("security: a secret in an invalid output still fails and is redacted, not overridden", async () => {
    const token = fake.githubToken();
    const { decision, output } = await decide("security", {
      ...validOutput("security"),
      [token]: 1,
    });
    expect(decision).toMatchObject({ verdict: "FAIL", overridden: false });
    expect(JSON.stringify(decision)).not.toContain(token);
    expect(JSON.stringify(output)).not.toContain(token);
    expect(decision.reasons).toContain(
      "structured output invalid: (root) must NOT have additional properties: [REDACTED:github]",
    );
  });

  it("architect: a secret in the output is redacted in output but does not fail", async () => {
    const token = fake.githubToken();
    const out = validOutput("architect");
    (out.plan as { risks: string[] }).risks = [`The repo's CI file holds ${token}.`];
    const { decision, output } = await decide("architect", withStructured("architect", out));
    expect(decision.verdict).toBe("PASS");
    expect(decision.overridden).toBe(false);
    expect(decision.reasons).toEqual([
      "architect wrote PASS in schema-valid structured output",
      "note: 1 secret redacted from the output (github)",
    ]);
    expect(JSON.stringify(output)).not.toContain(token);
    expect((output as { plan: { risks: string[] } }).plan.risks).toEqual([
      "The repo's CI file holds [REDACTED:github].",
    ]);
  });

  it("reviewer: a secret in the diff is the security step's business", async () => {
    const diff = `+++ b/a.ts\n+const t = "${fake.githubToken()}";\n`;
    expect((await decide("reviewer", envelope("reviewer-pass"), diff)).decision.verdict).toBe(
      "PASS",
    );
  });

  it("no reason ever carries a secret in clear (a subtype that is a token)", async () => {
    const token = fake.githubToken();
    const { decision } = await decide("builder", { ...envelope("builder-pass"), subtype: token });
    expect(decision.verdict).toBe("FAIL");
    expect(JSON.stringify(decision)).not.toContain(token);
    expect(decision.reasons.join("\n")).toContain("[REDACTED:github]");
  });
});

describe("decideVerdictFromText", () => {
  it("fails non-JSON text with 'output is not JSON' and never throws", async () => {
    for (const text of [
      "",
      "   ",
      "PASS",
      "{",
      `{"verdict": "PASS"`,
      "Sure! Here is the JSON: {}",
      "\u0000",
    ]) {
      const { decision, output } = await decideVerdictFromText("reviewer", text, { validator });
      expect(decision).toEqual({
        role: "reviewer",
        verdict: "FAIL",
        reasons: ["output is not JSON"],
        overridden: false,
      });
      expect(output).toBeNull();
    }
  });

  it("does not quote the input in the reason (JSON.parse's message would)", async () => {
    const token = fake.githubToken();
    const { decision } = await decideVerdictFromText("security", `${token} {`, { validator });
    expect(JSON.stringify(decision)).not.toContain(token);
  });

  it("reads the recorded envelope text", async () => {
    const text = JSON.stringify(envelope("reviewer-pass"));
    expect((await decideVerdictFromText("reviewer", text, { validator })).decision.verdict).toBe(
      "PASS",
    );
  });
});
