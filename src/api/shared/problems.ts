/** A validation problem: where (a field path such as `spec.containers[0].image`) and what to do. */
export interface Problem {
  path: string;
  message: string;
}

/** `spec.maxSize: must be >= spec.size (4); raise maxSize or lower size`. */
export function formatProblem(problem: Problem): string {
  return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}

/** Appends `.name` to a field path (or starts one). */
export function fieldPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

/** Appends `[key]` (list index or map key) to a field path, as Kubernetes field errors write it. */
export function indexPath(parent: string, key: string | number): string {
  return `${parent}[${key}]`;
}
