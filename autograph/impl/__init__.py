"""Implementation of the public API: conversion policy, converted_call, ag.function."""
