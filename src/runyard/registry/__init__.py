"""The registry: agent, tool and routing definitions as data, and the factories that build tools.

Tool factories, their dependency injection and toolkits live in ``runyard.registry.tools``.
"""
