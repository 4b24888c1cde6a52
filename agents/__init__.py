"""Players behind one small interface: ``act(observation, view) -> int``."""
