"""Reusable test suites that several components must pass.

Owns: the Transformer contract (:mod:`tests.contract.transformer_contract`) and
small scripted fakes for it (:mod:`tests.contract.fakes`). Does not own any
component's own tests (those live in ``tests/unit`` and ``tests/integration``).
"""
