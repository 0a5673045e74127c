// placeholder: filled by the architecture tables work
