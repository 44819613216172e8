/**
 * The text that becomes the entrypoint and broker.toml (the MiniCluster's ConfigMap): a batch
 * command with something to submit, a burst hostlist that expands, and a total size within what
 * Kubernetes takes for a ConfigMap (1 MiB), or the operator could never create it.
 *
 * The size is bounded, not computed: the entrypoint quotes every user text once (a `'` becomes five
 * characters) and some twice (job options in the program text, a batch script); the bounds (script-cel.ts,
 * with the CEL rules) count that, in UTF-8 bytes, the same way here and in CEL. script-rules.test.ts checks that
 * rendered ConfigMaps stay within them.
 */
import { decodeHostlist } from '../../flux/hostlist.ts';
import type { Problem } from '../shared/problems.ts';
import { duplicates } from '../shared/rule-helpers.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import type { DefaultedContainerV1alpha1, DefaultedMiniClusterV1alpha1Spec } from './schema.ts';
import {
  BATCH_LINE_BYTES,
  BATCH_LINE_PATTERN,
  CONTAINER_SCRIPT_MAX_BYTES,
  CONTAINER_TEXTS,
  SPEC_SCRIPT_MAX_BYTES,
} from '../shared/script-cel.ts';

const batchLine = new RegExp(BATCH_LINE_PATTERN, 'u');

const utf8 = new TextEncoder();

function bytes(text: string): number {
  return utf8.encode(text).length;
}

function quotes(text: string): number {
  return text.split("'").length - 1;
}

/** Bytes of `text` quoted once as a shell word. */
function quotedOnce(text: string | undefined): number {
  return text === undefined ? 0 : bytes(text) + 4 * quotes(text) + 2;
}

/** Bytes of one word quoted twice (a batch script inside the program text). */
function wordQuotedTwice(text: string): number {
  return bytes(text) + 16 * quotes(text) + 10;
}

/** Bytes of words (job options) quoted as words, then again with the program text. */
function wordsQuotedTwice(text: string | undefined): number {
  return text === undefined ? 0 : 6 * bytes(text) + 16 * quotes(text) + 8;
}

function isBatch(container: DefaultedContainerV1alpha1): boolean {
  return container.batch && !container.batchRaw;
}

export function containerScriptBytes(container: DefaultedContainerV1alpha1): number {
  const { command } = container;
  const commandBytes =
    command === undefined
      ? 0
      : container.batch && container.batchRaw
        ? wordQuotedTwice(command)
        : quotedOnce(command);
  return CONTAINER_TEXTS.reduce((total, hook) => total + quotedOnce(container.commands[hook]), commandBytes);
}

export function specScriptBytes(spec: DefaultedMiniClusterV1alpha1Spec): number {
  const { flux } = spec;
  const batchLines = spec.containers
    .filter((container) => container.runFlux && isBatch(container) && container.command !== undefined)
    .reduce(
      (total, container) =>
        total +
        (container.command ?? '').split('\n').length *
          (BATCH_LINE_BYTES + wordsQuotedTwice(flux.optionFlags)),
      0,
    );
  return (
    quotedOnce(flux.optionFlags) +
    wordsQuotedTwice(flux.optionFlags) +
    quotedOnce(flux.wrap) +
    quotedOnce(flux.submitCommand) +
    (flux.brokerConfig === undefined ? 0 : bytes(flux.brokerConfig)) +
    batchLines
  );
}

export const scriptSizes: SemanticRuleV1alpha1 = {
  name: "the entrypoint and broker.toml fit in the MiniCluster's ConfigMap",
  check: ({ spec }) => {
    const problems: Problem[] = [];
    spec.containers.forEach((container, index) => {
      const size = containerScriptBytes(container);
      if (size > CONTAINER_SCRIPT_MAX_BYTES) {
        problems.push({
          path: `spec.containers[${index}]`,
          message: `command and commands together take ${size} bytes in the entrypoint (quotes count five times), more than ${CONTAINER_SCRIPT_MAX_BYTES}; shorten them`,
        });
      }
    });
    const size = specScriptBytes(spec);
    if (size > SPEC_SCRIPT_MAX_BYTES) {
      problems.push({
        path: 'spec.flux',
        message: `optionFlags, wrap, submitCommand, brokerConfig and the batch lines (each with the optionFlags) take ${size} bytes in the MiniCluster's ConfigMap, more than ${SPEC_SCRIPT_MAX_BYTES}; shorten them`,
      });
    }
    return problems;
  },
};

export const batchCommand: SemanticRuleV1alpha1 = {
  name: 'a batch command has a line to submit',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) =>
      isBatch(container) && container.command !== undefined && !batchLine.test(container.command)
        ? [
            {
              path: `spec.containers[${index}].command`,
              message:
                'has no line to submit with batch: true (only blank lines and # comments); add a command line or remove batch',
            },
          ]
        : [],
    ),
};

export const burstHostlist: SemanticRuleV1alpha1 = {
  name: 'a burst hostlist expands to distinct hosts, at least size of them',
  check: ({ spec }) => {
    const hostlist = spec.flux.bursting?.hostlist;
    if (hostlist === undefined) return [];
    const path = 'spec.flux.bursting.hostlist';
    let hosts: string[];
    try {
      hosts = decodeHostlist(hostlist);
    } catch (error) {
      return [{ path, message: `is not a hostlist: ${(error as Error).message}` }];
    }
    const [duplicate] = duplicates(hosts, (host) => host);
    if (duplicate !== undefined) {
      return [
        {
          path,
          message: `lists ${JSON.stringify(hosts[duplicate.index])} twice; a host has one rank, so list it once`,
        },
      ];
    }
    if (hosts.length < spec.size) {
      return [
        {
          path,
          message: `lists ${hosts.length} hosts, fewer than spec.size (${spec.size}) brokers; list every host of the instance`,
        },
      ];
    }
    return [];
  },
};
