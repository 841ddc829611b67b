/**
 * Fake secrets, built at run time so that no secret-looking literal sits in the repository.
 * Each one is shaped to trigger a secretlint rule (checked in scan.test.ts); none avoids the
 * rules' built-in "example" allow lists by accident (AKIAIOSFODNN7EXAMPLE and friends are
 * skipped by secretlint, these are not).
 */
const ALNUM = "A1b2C3d4E5f6G7h8J9k0";

function chars(length: number, alphabet = ALNUM): string {
  return alphabet.repeat(Math.ceil(length / alphabet.length)).slice(0, length);
}

export const fake = {
  /** Classic personal access token: ghp_ + 36. */
  githubToken: (): string => `ghp_${chars(36)}`,
  /** Fine-grained token: github_pat_ + 82. */
  githubFineGrained: (): string => `github_pat_${chars(82)}`,
  slackToken: (): string => `xoxb-${"1234567890"}-${"1234567890123"}-${chars(24)}`,
  anthropicKey: (): string => `sk-ant-api03-${chars(93)}AA`,
  npmToken: (): string => `npm_${chars(36)}`,
  /** The 40-character value of an AWS secret access key (needs its key name around it). */
  awsSecretValue: (): string => chars(40, "wJalrXUtnFEMIK7MDENGbPxRfiCY"),
  awsSecretAssignment(): string {
    return `aws_secret_access_key = "${this.awsSecretValue()}"`;
  },
  awsAccessKeyId: (): string => `AKIA${chars(16, "QWERTYUIOPASDFGH")}`,
  /** A PEM block; `kind` "RSA " etc., "" for PKCS#8, "ENCRYPTED " for an encrypted key. */
  privateKey(kind = "RSA ", bodyLength = 256): string {
    const body = `MIIEowIBAAKCAQEA${chars(bodyLength, "q8Zx3Vb7Nm1Lk5Jh9Gf2Ds4A")}`;
    const lines = body.match(/.{1,64}/g) ?? [];
    const dashes = "-----";
    return `${dashes}BEGIN ${kind}PRIVATE KEY${dashes}\n${lines.join("\n")}\n${dashes}END ${kind}PRIVATE KEY${dashes}`;
  },
  /**
   * A secret no shape rule knows (a webhook secret, a password): only the known-value search
   * can find it. `??>>~~` makes its base64 hold `/` and `+`, so base64url differs.
   */
  opaqueSecret: (): string => `forge-test-${chars(24)}-??>>~~??`,
  /** The body line of a private key that must never survive redaction. */
  privateKeyBodyLine(bodyLength = 256): string {
    return (this.privateKey("RSA ", bodyLength).split("\n")[2] ?? "").trim();
  },
};
