"""The `cocotb` kind: a cocotb testbench judged against a correct design and its mutants."""
