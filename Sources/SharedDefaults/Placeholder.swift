// Filled in by the module's first real commit.
