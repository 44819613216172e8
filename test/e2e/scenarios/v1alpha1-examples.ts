// The Go operator's own v1alpha1 e2e manifests (examples/tests/* at its last v1alpha1 commit), read
// from ../shared/deps at test time.
export function v1alpha1ExampleScenarios(): void {}
