/** The install objects as YAML, with each RBAC rule preceded by the reason it exists. Pure. */
import { Document, isMap, isSeq } from 'yaml';
import { LEADER_ELECTION_RULES, OPERATOR_RULES, WEBHOOK_SECRET_RULES, policyRule } from './rbac.ts';
import type { DocumentedRule } from './rbac.ts';

const RULE_REASONS = new Map<string, string>(
  [...OPERATOR_RULES, ...LEADER_ELECTION_RULES, ...WEBHOOK_SECRET_RULES].map((rule) => [ruleKey(rule), rule.why]),
);

function ruleKey(rule: {
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  verbs?: readonly string[];
}) {
  return JSON.stringify([rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.verbs ?? []]);
}

/** lineWidth 0: no folding, so a change shows as a one-line diff. */
const STRINGIFY_OPTIONS = { lineWidth: 0 } as const;

function commentRules(rules: unknown): void {
  if (!isSeq(rules)) return;
  for (const item of rules.items) {
    if (!isMap(item)) continue;
    const why = RULE_REASONS.get(ruleKey(item.toJSON() as DocumentedRule));
    if (why !== undefined) item.commentBefore = ` ${why}`;
  }
}

/** A YAML document of the object; a `rules` list gets one comment per rule it knows the reason of. */
export function documentYaml(object: object): string {
  const document = new Document(object);
  commentRules(document.get('rules', true));
  return document.toString(STRINGIFY_OPTIONS);
}

/** A bare list of documented rules (for a Helm include), each preceded by its reason. */
export function rulesYaml(rules: readonly DocumentedRule[]): string {
  const document = new Document(rules.map(policyRule));
  commentRules(document.contents);
  return document.toString(STRINGIFY_OPTIONS);
}

/** Several objects as one multi-document YAML stream. */
export function multiDocumentYaml(objects: readonly object[]): string {
  return objects.map(documentYaml).join('---\n');
}
